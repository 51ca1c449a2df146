"""A neighbourhood drawn as box-drawing text: pure, deterministic, no Textual.

The graph is unfolded into a tree from the centre (networkx's breadth-first
tree over the shown neighbours, best first): each node once as a box, a node
reached again from elsewhere as a dashed reference box, a "+N more" box under
every node with hidden edges. Columns are hops; rows come from stacking the
leaves, each parent centred on its children, so subtrees never share rows and
boxes never overlap. The same neighbourhood and width always give the same text.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from memexplorer.operator.neighbourhood import GraphEdge, GraphNode, Neighbourhood

__all__ = ["Box", "Drawing", "draw", "edge_text"]

BoxKind = Literal["node", "ref", "more"]
BOX_HEIGHT = 3
SLOT = BOX_HEIGHT + 1
GAP = 24
MIN_BOX, MAX_BOX = 16, 48
_UP, _DOWN, _LEFT, _RIGHT = 1, 2, 4, 8
_LINES = {
    _LEFT | _RIGHT: "─", _LEFT: "─", _RIGHT: "─", _UP | _DOWN: "│", _UP: "│", _DOWN: "│",
    _DOWN | _RIGHT: "┌", _DOWN | _LEFT: "┐", _UP | _RIGHT: "└", _UP | _LEFT: "┘",
    _UP | _DOWN | _RIGHT: "├", _UP | _DOWN | _LEFT: "┤", _DOWN | _LEFT | _RIGHT: "┬",
    _UP | _LEFT | _RIGHT: "┴", _UP | _DOWN | _LEFT | _RIGHT: "┼",
}  # fmt: skip


@dataclass
class Box:
    """One drawn box. ``node`` is the node it shows (for "+N more": the node whose
    edges it counts); ``parent`` the index of the box it hangs from."""

    index: int
    kind: BoxKind
    node: str
    table: str
    text: str
    parent: int | None
    column: int
    x: int = 0
    y: int = 0
    width: int = 0
    children: list[int] = field(default_factory=list)
    edges: list[GraphEdge] = field(default_factory=list)

    @property
    def middle(self) -> int:
        return self.y + 1

    def cells(self) -> set[tuple[int, int]]:
        return {(self.y + r, self.x + c) for r in range(BOX_HEIGHT) for c in range(self.width)}


@dataclass
class Drawing:
    lines: list[str]
    boxes: list[Box]
    #: (row, first column, end column) of every edge label, for styling.
    labels: list[tuple[int, int, int]]

    @property
    def text(self) -> str:
        return "\n".join(self.lines)

    def find(self, node: str, kind: BoxKind = "node") -> Box | None:
        return next((b for b in self.boxes if b.node == node and b.kind == kind), None)

    def at(self, row: int, column: int) -> Box | None:
        return next((b for b in self.boxes if (row, column) in b.cells()), None)

    def step(self, index: int, direction: str) -> int:
        """The box the selection moves to from ``index``: next/previous in order, or
        the nearest box in the arrow's direction, wherever it hangs (from the centre,
        down reaches the boxes below it in the next column). Left and right go to
        the nearest column first, then the nearest row; up and down stay in the
        column when they can, else the nearest column that has a box that way."""
        box = self.boxes[index]
        if direction in ("next", "previous"):
            return (index + (1 if direction == "next" else -1)) % len(self.boxes)
        best: tuple[float, float, int] | None = None
        for other in self.boxes:
            ahead, aside = _offsets(box, other, direction)
            if ahead <= 0:
                continue
            vertical = direction in ("up", "down")
            score = (aside, ahead, other.index) if vertical else (ahead, aside, other.index)
            best = score if best is None or score < best else best
        return index if best is None else best[2]


def _offsets(origin: Box, other: Box, direction: str) -> tuple[float, float]:
    """How far ``other`` lies in ``direction`` from ``origin`` (positive: ahead), and
    how far to the side: hops across, box slots down."""
    across = other.column - origin.column
    down = (other.middle - origin.middle) / SLOT
    if direction in ("up", "down"):
        return (down if direction == "down" else -down), abs(across)
    return (across if direction == "right" else -across), abs(down)


def edge_text(edge: GraphEdge, parent: str, width: int) -> str:
    """An edge label such as "→ SIMILAR_TO 0.83": the arrow points away from the parent or back."""
    arrow = "→" if edge.source == parent else "←"
    weight = f" {edge.weight:.2f}" if edge.weight is not None else ""
    room = width - len(arrow) - 1 - len(weight)
    rel = edge.rel if len(edge.rel) <= room else edge.rel[: max(room - 1, 1)] + "…"
    return f"{arrow} {rel}{weight}"


def _clip(text: str, width: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: max(width - 1, 0)] + "…"


# -- the tree ------------------------------------------------------------------------------
def _unfold(hood: Neighbourhood) -> list[Box]:
    """Boxes in pre-order; networkx's BFS tree says which box is each node's own."""
    import networkx as nx  # imported here: it costs 0.13 s of every start

    shown = nx.DiGraph()
    shown.add_node(hood.centre)
    for node in hood.nodes.values():
        for neighbour in node.shown:
            shown.add_edge(node.id, neighbour)
    tree = nx.bfs_tree(shown, hood.centre)
    parent_of = {child: parent for parent, child in tree.edges}
    boxes: list[Box] = []

    def add(kind: BoxKind, node: GraphNode, parent: int | None, column: int, text: str) -> Box:
        box = Box(len(boxes), kind, node.id, node.table, text, parent, column)
        boxes.append(box)
        if parent is not None:
            boxes[parent].children.append(box.index)
        return box

    def visit(node: GraphNode, parent: int | None, column: int) -> None:
        box = add("node", node, parent, column, node.label)
        for neighbour in node.shown:
            if neighbour == parent_of.get(node.id):
                continue
            other = hood.nodes[neighbour]
            index = len(boxes)
            if parent_of.get(neighbour) == node.id:
                visit(other, box.index, column + 1)
            else:
                add("ref", other, box.index, column + 1, f"↺ {other.label}")
            boxes[index].edges = hood.between(node.id, neighbour)
        if node.hidden:
            add("more", node, box.index, column + 1, f"+{node.hidden:,} more")

    visit(hood.nodes[hood.centre], None, 0)
    return boxes


def _place(boxes: list[Box], width: int) -> None:
    columns = max(b.column for b in boxes) + 1
    box_width = (width - (columns - 1) * GAP) // columns
    box_width = max(MIN_BOX, min(MAX_BOX, box_width))
    next_row = 0

    def place(box: Box) -> None:
        nonlocal next_row
        box.x, box.width = box.column * (box_width + GAP), box_width
        if not box.children:
            box.y, next_row = next_row, next_row + SLOT
            return
        for child in box.children:
            place(boxes[child])
        first, last = boxes[box.children[0]], boxes[box.children[-1]]
        box.y = (first.y + last.y) // 2

    place(boxes[0])


# -- the text ------------------------------------------------------------------------------
def draw(hood: Neighbourhood, width: int = 118) -> Drawing:
    """The neighbourhood as lines of text at most about ``width`` wide."""
    boxes = _unfold(hood)
    _place(boxes, width)
    rows = max(b.y for b in boxes) + BOX_HEIGHT
    cols = max(b.x + b.width for b in boxes)
    grid = [[" "] * cols for _ in range(rows)]
    bits = [[0] * cols for _ in range(rows)]
    labels: list[tuple[int, int, int]] = []
    writes: Writes = []
    for box in boxes:
        if box.children:
            _route(box, [boxes[i] for i in box.children], bits, writes, labels)
    for r, row in enumerate(bits):
        for c, value in enumerate(row):
            if value:
                grid[r][c] = _LINES[value]
    for r, c, text in writes:
        grid[r][c : c + len(text)] = list(text)
    for box in boxes:
        _box(grid, box, hood.nodes[box.node])
    lines = ["".join(row).rstrip() for row in grid]
    return Drawing(lines, boxes, labels)


Writes = list[tuple[int, int, str]]


def _route(
    parent: Box, children: list[Box], bits: list[list[int]], writes: Writes,
    labels: list[tuple[int, int, int]],
) -> None:  # fmt: skip
    """Parent ─┬─ label ─ child: a trunk one column right of the parent."""
    trunk = parent.x + parent.width + 1
    row = parent.middle
    bits[row][parent.x + parent.width] |= _LEFT | _RIGHT
    bits[row][trunk] |= _LEFT
    top = min([row] + [c.middle for c in children])
    bottom = max([row] + [c.middle for c in children])
    for r in range(top, bottom + 1):
        bits[r][trunk] |= (_UP if r > top else 0) | (_DOWN if r < bottom else 0)
    for child in children:
        end = child.x - 1
        bits[child.middle][trunk] |= _RIGHT
        for c in range(trunk + 1, end + 1):
            bits[child.middle][c] |= _LEFT | _RIGHT
        room = end - trunk - 3
        for line, edge in enumerate(child.edges[:2]):
            text = edge_text(edge, parent.node, room)
            extra = len(child.edges) - 2
            if line == 1 and extra > 0:
                text = _clip(f"{text} +{extra}", room)
            at = trunk + 3
            padded = (at - 1, f" {text} ") if line == 0 else (at, text)
            writes.append((child.middle + line, *padded))
            labels.append((child.middle + line, at, at + len(text)))


def _box(grid: list[list[str]], box: Box, node: GraphNode) -> None:
    w = box.width
    if box.kind == "ref":
        top, side, bottom = "┌╌┐", "╎", "└╌┘"
    else:
        top, side, bottom = "╭─╮", "│", "╰─╯"
    title = "" if box.kind == "more" else _clip(box.table, w - 4)
    head = f"{top[0]}{top[1]}{title}".ljust(w - 1, top[1]) + top[2]
    if box.kind == "node" and node.expanded:
        note = f" {node.degree:,} edge{'' if node.degree == 1 else 's'} "
    elif box.kind == "node":
        note = " ▸ "
    else:
        note = ""
    foot = (bottom[0] + bottom[1] * (w - 3 - len(note)) + note + bottom[1])[: w - 1] + bottom[2]
    body = side + _clip(box.text, w - 2).ljust(w - 2) + side
    for r, text in enumerate((head, body, foot)):
        grid[box.y + r][box.x : box.x + w] = list(text)
    if box.parent is not None:
        grid[box.middle][box.x] = "┤"
    if box.children:
        grid[box.middle][box.x + w - 1] = "├"
