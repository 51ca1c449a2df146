"""Neighbourhoods: caps, depth, "+N more" counts, ranking, on a hub of 500 edges and on
the reference stores (degrees checked against the node view's edge lists)."""

from __future__ import annotations

from pathlib import Path

import pytest
from graph_stores import BRANCHING, HUB, HUB_EDGES, make_hub_store

from memexplorer.operator.browse import open_browser
from memexplorer.operator.neighbourhood import NeighbourhoodReader, View, node_id
from memexplorer.storage.exceptions import InvalidInputError


@pytest.fixture(scope="module")
def hub_reader(tmp_path_factory: pytest.TempPathFactory):
    browser = open_browser(make_hub_store(tmp_path_factory.mktemp("hub") / "kuzu_db"))
    yield NeighbourhoodReader(browser)
    browser.close()


def test_depth_one_keeps_the_heaviest_edges_and_counts_the_rest(hub_reader):
    hood = hub_reader.read("Fact", HUB, View(depth=1, centre_cap=12))
    centre = hood.nodes[node_id("Fact", HUB)]
    assert centre.degree == HUB_EDGES
    assert centre.shown == tuple(node_id("Fact", f"n{i:03d}") for i in range(499, 487, -1))
    assert centre.hidden == HUB_EDGES - 12
    assert len(hood.nodes) == 13 and len(hood.edges) == 12
    assert all(not hood.nodes[n].expanded for n in centre.shown)
    assert {hood.nodes[n].depth for n in centre.shown} == {1}


def test_edge_direction_and_weight_are_kept(hub_reader):
    hood = hub_reader.read("Fact", HUB, View(depth=1, centre_cap=2))
    by_target = {e.target if e.source == hood.centre else e.source: e for e in hood.edges.values()}
    out, back = by_target[node_id("Fact", "n498")], by_target[node_id("Fact", "n499")]
    assert (out.source, out.rel, out.weight) == (hood.centre, "LINKS", 0.498)
    assert (back.target, back.weight) == (hood.centre, 0.499)


def test_depth_two_caps_every_neighbour(hub_reader):
    hood = hub_reader.read("Fact", HUB, View(depth=2, centre_cap=5, cap=2))
    first = hood.nodes[hood.centre].shown
    assert len(first) == 5
    for n in first:
        node = hood.nodes[n]
        assert node.degree == BRANCHING + 1
        # The hub it was reached from, then its two heaviest leaves.
        assert node.shown[0] == hood.centre and len(node.shown) == 3
        assert node.hidden == BRANCHING - 2
        assert [hood.nodes[m].depth for m in node.shown[1:]] == [2, 2]
    assert len(hood.nodes) == 1 + 5 + 5 * 2
    assert len(hood.edges) == 5 + 5 * 2
    assert all(not n.expanded for n in hood.nodes.values() if n.depth == 2)


def test_more_expand_and_collapse(hub_reader):
    view = View(depth=1, centre_cap=12)
    more = hub_reader.read("Fact", HUB, view.with_more(node_id("Fact", HUB), 12))
    assert len(more.nodes[more.centre].shown) == 24
    assert more.nodes[more.centre].hidden == HUB_EDGES - 24
    neighbour = node_id("Fact", "n499")
    opened = hub_reader.read("Fact", HUB, view.toggled(neighbour, is_open=False))
    assert opened.nodes[neighbour].degree == BRANCHING + 1
    assert len(opened.nodes) == 13 + BRANCHING
    closed = hub_reader.read("Fact", HUB, View(depth=2).toggled(neighbour, is_open=True))
    assert not closed.nodes[neighbour].expanded
    assert sum(n.expanded for n in closed.nodes.values()) == 12  # centre + 11 others
    alone = hub_reader.read("Fact", HUB, view.toggled(more.centre, is_open=True))
    assert list(alone.nodes) == [alone.centre] and not alone.edges


def test_recency_ranks_edges_without_weights(hub_reader):
    hood = hub_reader.read("Fact", "quiet", View(depth=1, centre_cap=3))
    assert hood.nodes[hood.centre].shown == tuple(node_id("Fact", f"q{d}") for d in (5, 4, 3))
    assert hood.nodes[hood.centre].hidden == 2
    assert all(e.weight is None for e in hood.edges.values())


def test_same_input_same_output(hub_reader):
    a = hub_reader.read("Fact", HUB, View(depth=2))
    b = hub_reader.read("Fact", HUB, View(depth=2))
    assert a.nodes == b.nodes and a.edges == b.edges
    graph = a.graph()
    assert graph.number_of_nodes() == len(a.nodes)
    assert graph.number_of_edges() == len(a.edges)


def test_bad_requests(hub_reader, reference_stores: Path):
    with pytest.raises(InvalidInputError, match="No Fact node"):
        hub_reader.read("Fact", "nope")
    with pytest.raises(InvalidInputError, match="depth"):
        hub_reader.read("Fact", HUB, View(depth=3))
    with pytest.raises(InvalidInputError, match="node table"):
        hub_reader.read("LINKS", HUB)
    sqlite = reference_stores / "home/.amplihack/memory/ops-agent/experiences.db"
    browser = open_browser(sqlite)
    try:
        with pytest.raises(InvalidInputError, match="no edges"):
            NeighbourhoodReader(browser)
    finally:
        browser.close()


STORES = [
    "home/.amplihack/hierarchical_memory/ops-agent/kuzu_db",
    "home/.amplihack/hierarchical_memory/support-bot/kuzu_db",
    "cognitive_db",
    "shared_two_agents/kuzu_db",
]


@pytest.mark.parametrize("store", STORES)
def test_reference_degrees_match_the_node_view(reference_stores: Path, store: str):
    """For the five busiest nodes of each store: the degree is every edge the node view
    lists, hidden + drawn edges add up to it, and the caps hold."""
    browser = open_browser(reference_stores / store)
    try:
        reader = NeighbourhoodReader(browser)
        busiest = []
        for table, pk in sorted(reader.keys.items()):
            rows = browser.graph.rows(
                f"MATCH (n:{table})-[r]-() RETURN n.{pk}, count(r) AS c ORDER BY c DESC, "
                f"n.{pk} LIMIT 5"
            )
            busiest += [(c, table, str(k)) for k, c in rows]
        assert busiest
        for _, table, key in sorted(busiest, reverse=True)[:5]:
            detail = browser.node(table, key)
            listed = sum(len(e) for e in detail.edges.values()) + sum(detail.more.values())
            hood = reader.read(table, key, View(depth=2, centre_cap=3, cap=2))
            centre = hood.nodes[hood.centre]
            assert centre.degree == listed
            drawn = [e for e in hood.edges.values() if hood.centre in (e.source, e.target)]
            assert centre.hidden + len(drawn) == listed
            assert len(centre.shown) <= 3
            for node in hood.nodes.values():
                if node.depth == 1 and node.expanded:
                    nearer = [m for m in node.shown if hood.nodes[m].depth == 0]
                    assert len(node.shown) - len(nearer) <= 2
    finally:
        browser.close()
