"""What a retrieval returned: each fact with why it is there, its place in a temporal
chain, whether a newer fact replaced it, and the edges among the facts."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.widgets import Tree

from memexplorer.app.literal import literal
from memexplorer.memory.knowledge import KnowledgeEdge, KnowledgeNode, KnowledgeSubgraph

#: Characters of a fact's content shown on its line (the node view has all of it).
CONTENT_WIDTH = 70


def _short(node_id: str) -> str:
    return node_id[:8]


def _clip(text: str, width: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def _named(node_id: str, by_id: dict[str, KnowledgeNode]) -> Text:
    """A node as its short id and, when it was returned too, its concept."""
    label = Text(_short(node_id), style="cyan")
    if node_id in by_id:
        label.append(f" [{by_id[node_id].concept}]", style="dim")
    return label


def describe_reason(reason: dict[str, Any], by_id: dict[str, KnowledgeNode]) -> Text:
    """One ``retrieved_because`` entry as a line of the tree."""
    kind = reason.get("kind", "")
    line = Text("why: ", style="bold")
    if kind == "keyword":
        line.append("keyword terms ")
        line.append(", ".join(reason.get("terms", [])), style="green")
    elif kind == "entity":
        line.append("entity ")
        line.append(str(reason.get("entity", "")), style="green")
        line.append(f" (query: {', '.join(reason.get('query', []))})", style="dim")
    elif kind == "similar_to":
        line.append("similar to ")
        line.append_text(_named(str(reason.get("from", "")), by_id))
        line.append(f" weight {reason.get('weight') or 0.0:.2f}", style="yellow")
    elif kind in ("supersedes_context", "transition_context"):
        rel = "SUPERSEDES" if kind == "supersedes_context" else "TRANSITIONED_TO"
        line.append(f"{rel} chain context of ")
        line.append_text(_named(str(reason.get("of", "")), by_id))
    else:
        line.append(str(reason))
    return line


def node_label(number: int, node: KnowledgeNode) -> Text:
    """Number, concept, the chain and supersession marks, then the content (which the
    tree crops at its edge, so the marks always show)."""
    meta = node.metadata
    label = Text(f"{number:>2}. ", style="dim")
    label.append(f"[{node.concept}] ", style="bold")
    if meta.get("chain_position"):
        label.append(f"{meta['chain_position']} ", style="magenta")
    if meta.get("superseded"):
        label.append(f"⚠ superseded by {_short(str(meta.get('superseded_by', '')))} ",
                     style="bold yellow")  # fmt: skip
    label.append(f"{node.confidence:.2f} ", style="dim")
    label.append(_clip(node.content, CONTENT_WIDTH))
    return label


def edge_label(edge: KnowledgeEdge, by_id: dict[str, KnowledgeNode]) -> Text:
    label = _named(edge.source_id, by_id)
    label.append(f" ─{edge.relationship}→ ", style="bold")
    label.append_text(_named(edge.target_id, by_id))
    if edge.relationship == "SIMILAR_TO":
        label.append(f"  weight {edge.weight:.2f}", style="yellow")
    if edge.metadata.get("contradiction"):
        conflict = edge.metadata.get("conflicting_values", "")
        label.append(f"  ⚠ contradiction {conflict}", style="bold red")
    elif edge.metadata.get("reason"):
        label.append(f"  {edge.metadata['reason']}", style="dim")
    return label


class QueryResults(Tree[str | None]):
    """The retrieved facts (data: the node id), their reasons, then the edges among them."""

    HELP = (
        "The facts retrieval returned, best first: concept, content, confidence, the chain "
        "position and ⚠ when a newer fact superseded it. Under each, **why** it was "
        "returned. **enter** or **o** opens the fact's node."
    )
    DEFAULT_CSS = """
    QueryResults { height: 1fr; overflow-x: hidden; }
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__("results", **kwargs)
        self.show_root = False
        self.guide_depth = 2
        self.subgraph: KnowledgeSubgraph | None = None
        self.border_title = "results"

    def show(self, subgraph: KnowledgeSubgraph, summary: str) -> None:
        """Replace the tree with a retrieval's facts and edges."""
        self.subgraph = subgraph
        self.border_title = literal(summary)
        self.clear()
        if not subgraph.nodes:
            self.root.add_leaf(Text(f"nothing found for {subgraph.query!r}", style="dim"))
            return
        by_id = {node.node_id: node for node in subgraph.nodes}
        for number, node in enumerate(subgraph.nodes, 1):
            branch = self.root.add(node_label(number, node), node.node_id, expand=True)
            for reason in node.metadata.get("retrieved_because", []):
                branch.add_leaf(describe_reason(reason, by_id), node.node_id)
        edges = self.root.add(Text(f"edges among them ({len(subgraph.edges)})", style="bold"))
        for edge in subgraph.edges:
            edges.add_leaf(edge_label(edge, by_id), edge.source_id)
        edges.expand()
        self.move_cursor(self.root.children[0])

    def shown_ids(self) -> list[str]:
        """The ids of the facts listed, in order (what the operator sees)."""
        return [str(node.data) for node in self.root.children if node.data is not None]

    def cursor_id(self) -> str | None:
        node = self.cursor_node
        return None if node is None else node.data
