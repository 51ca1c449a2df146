"""The neighbourhood drawing without Textual: same input same text, no box overlaps,
every edge labelled, every box reachable with the selection keys."""

from __future__ import annotations

import pytest
from graph_stores import HUB, HUB_EDGES, make_hub_store

from memexplorer.app.graph_drawing import BOX_HEIGHT, draw
from memexplorer.operator.browse import open_browser
from memexplorer.operator.neighbourhood import NeighbourhoodReader, View


@pytest.fixture(scope="module")
def reader(tmp_path_factory: pytest.TempPathFactory):
    browser = open_browser(make_hub_store(tmp_path_factory.mktemp("hub") / "kuzu_db"))
    yield NeighbourhoodReader(browser)
    browser.close()


@pytest.fixture(scope="module")
def reference(_pristine_stores):
    browser = open_browser(
        _pristine_stores / "home/.amplihack/hierarchical_memory/ops-agent/kuzu_db"
    )
    yield NeighbourhoodReader(browser)
    browser.close()


def _busiest(reader: NeighbourhoodReader) -> str:
    rows = reader.graph.rows(
        "MATCH (n:SemanticMemory)-[r]-() RETURN n.memory_id, count(r) AS c "
        "ORDER BY c DESC, n.memory_id LIMIT 1"
    )
    return rows[0][0]


VIEWS = [View(depth=1), View(depth=2), View(depth=2, centre_cap=3, cap=1)]


@pytest.mark.parametrize("view", VIEWS)
def test_same_neighbourhood_same_text(reader, reference, view):
    for source, key in ((reader, HUB), (reference, _busiest(reference))):
        table = "Fact" if source is reader else "SemanticMemory"
        first = draw(source.read(table, key, view), 118).text
        assert draw(source.read(table, key, view), 118).text == first


@pytest.mark.parametrize("view", VIEWS)
def test_boxes_never_overlap(reader, reference, view):
    for hood in (reader.read("Fact", HUB, view),
                 reference.read("SemanticMemory", _busiest(reference), view)):  # fmt: skip
        drawing = draw(hood, 118)
        seen: set[tuple[int, int]] = set()
        for box in drawing.boxes:
            cells = box.cells()
            assert len(cells) == BOX_HEIGHT * box.width
            assert not cells & seen, f"box {box.index} overlaps another"
            seen |= cells
        for row, start, end in drawing.labels:
            assert not {(row, c) for c in range(start, end)} & seen, "a label over a box"


def test_labels_tables_and_more(reader):
    hood = reader.read("Fact", HUB, View(depth=2, centre_cap=4, cap=2))
    drawing = draw(hood, 118)
    text = drawing.text
    assert f"+{HUB_EDGES - 4} more" in text
    assert text.count("+1 more") == 4  # each neighbour: 4 edges, the hub and 2 leaves drawn
    assert "← LINKS 0.50" in text and "→ LINKS 0.50" in text  # n499 points at the hub
    assert "→ LINKS 0.20" in text  # the heaviest leaf edge
    assert f"{HUB_EDGES:,} edges" in text
    node_boxes = [b for b in drawing.boxes if b.kind == "node"]
    assert {b.node for b in node_boxes} == set(hood.nodes)
    for box in node_boxes:
        line = drawing.lines[box.y]
        assert "Fact" in line[box.x : box.x + box.width]
        body = drawing.lines[box.middle][box.x + 1 : box.x + box.width - 1].strip()
        assert hood.nodes[box.node].label.startswith(body.rstrip("…"))
    for row, start, end in drawing.labels:
        assert "LINKS" in drawing.lines[row][start:end]


def test_references_for_nodes_drawn_elsewhere(reference):
    drawing = draw(reference.read("SemanticMemory", _busiest(reference), View(depth=2)), 118)
    refs = [b for b in drawing.boxes if b.kind == "ref"]
    assert refs and all(drawing.find(b.node) is not None for b in refs)
    assert "↺" in drawing.text and "┌╌" in drawing.text


def test_selection_steps(reader):
    drawing = draw(reader.read("Fact", HUB, View(depth=2, centre_cap=3, cap=2)), 118)
    centre = 0
    first = drawing.step(centre, "right")
    assert drawing.boxes[first].parent == centre
    assert drawing.step(first, "left") == centre
    below = drawing.step(first, "down")
    assert drawing.boxes[below].column == drawing.boxes[first].column
    assert drawing.boxes[below].y > drawing.boxes[first].y
    assert drawing.step(below, "up") == first
    assert drawing.step(centre, "left") == centre  # nothing lies left of the centre
    # The centre sits between its children: up and down reach the nearest of them.
    for direction, ahead in (("down", 1), ("up", -1)):
        reached = drawing.boxes[drawing.step(centre, direction)]
        assert (reached.middle - drawing.boxes[centre].middle) * ahead > 0
        assert reached.column == 1 and reached.parent == centre
    order = [centre]
    for _ in drawing.boxes:
        order.append(drawing.step(order[-1], "next"))
    assert sorted(order[:-1]) == list(range(len(drawing.boxes))) and order[-1] == centre
    assert drawing.step(centre, "previous") == len(drawing.boxes) - 1
    box = drawing.boxes[below]
    assert drawing.at(box.middle, box.x + 2) is box
