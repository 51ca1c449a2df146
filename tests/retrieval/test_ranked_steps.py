"""Each step of the ``ranked`` profile (seed 003's seven steps) on a hand-built store.

Every expected answer is worked out by hand from the steps: direct matches
score ``confidence * (0.5 + 0.5 * content hits / keywords)`` (a concept or
entity match alone scores half), ties going to the newer fact; when they leave
room, temporal-chain neighbours (either direction) rank next by confidence and
SIMILAR_TO neighbours at or above the threshold last by ``weight *
confidence``; a superseded fact is marked by its newest replacement (highest
``temporal_index``) and its confidence halved once; the edges among the result
come SIMILAR_TO (heaviest first), then SUPERSEDES, then TRANSITIONED_TO. The
confidences are chosen so every score is exact in binary floating point.
"""

from __future__ import annotations

import json

import pytest

from memexplorer.memory.hierarchical_memory import HierarchicalMemory
from memexplorer.memory.hierarchical_schema import REL_TABLES, create_schema
from memexplorer.memory.retrieval import Retriever
from memexplorer.memory.retrieval_query import query_entities, query_keywords
from memexplorer.storage.graph_open import open_graph_store

from .hand_built import AGENT, add_edge, add_fact


def _fact(graph, fact_id: str, content: str, confidence: float, **extra) -> None:
    add_fact(graph, fact_id, content, confidence, **({"created": "2026-01-01"} | extra))


def _rel(graph, rel: str, source: str, target: str, **props) -> None:
    add_edge(graph, rel, source, target, **props)


def _write_store(graph) -> None:
    create_schema(graph)
    # Direct matches for "alpha bravo".
    _fact(graph, "a-both", "alpha bravo one", 0.375)  # 0.375 * 1
    _fact(graph, "a-alpha", "alpha two", 1.0)  # 1.0 * 0.75
    _fact(graph, "a-concept", "unrelated words", 0.625, concept="alpha topic")  # 0.625 * 0.5
    _fact(graph, "a-bravo", "bravo four", 0.5, created="2026-01-02")  # 0.5 * 0.75, newer
    # "charlie": a hub with chain and similarity neighbours.
    _fact(graph, "c-hub", "charlie hub", 0.5, created="2026-01-02")
    _fact(graph, "c-next", "next value", 0.625, created="2026-01-03")  # read before c-old
    _fact(graph, "c-old", "older value", 0.9, created="2026-01-01")
    _fact(graph, "c-high", "similar high", 1.0)
    _fact(graph, "c-low", "similar low", 1.0)
    _fact(graph, "c-below", "similar below", 1.0)
    _fact(graph, "c-in", "pointing in", 0.5)
    _rel(graph, "SUPERSEDES", "c-hub", "c-old", reason="newer", temporal_delta=None)
    _rel(graph, "TRANSITIONED_TO", "c-hub", "c-next", from_value=None, to_value="5", turn=2,
         transition_type="update")  # fmt: skip
    _rel(graph, "SIMILAR_TO", "c-hub", "c-high", weight=0.875, metadata="")  # above c-next
    _rel(graph, "SIMILAR_TO", "c-hub", "c-low", weight=0.25, metadata="")  # below 0.3
    _rel(graph, "SIMILAR_TO", "c-hub", "c-below", weight=0.125, metadata="")
    _rel(graph, "SIMILAR_TO", "c-in", "c-hub", weight=0.75, metadata='{"note": "in"}')  # 0.375
    # "delta": two replacements; the one with the higher temporal_index wins.
    # The newest is read first, and the oldest was written last (its index comes first).
    _fact(graph, "d-old", "delta old", 0.75, created="2026-01-05")
    _fact(graph, "d-new", "newest", 0.25, metadata=json.dumps({"temporal_index": 2}))
    _fact(graph, "d-mid", "middle", 0.5, metadata=json.dumps({"temporal_index": 1}))
    _rel(graph, "SUPERSEDES", "d-new", "d-old", reason="second", temporal_delta="1 -> 2")
    _rel(graph, "SUPERSEDES", "d-mid", "d-old", reason="first", temporal_delta="0 -> 1")
    _fact(graph, "e-halved", "echo already halved", 0.25,
          metadata=json.dumps({"confidence_before_supersede": 0.5}))  # fmt: skip
    _fact(graph, "e-newer", "unrelated", 0.5)
    _rel(graph, "SUPERSEDES", "e-newer", "e-halved", reason="", temporal_delta="")
    # "foxtrot": provenance labels from the episode a fact came from.
    graph.execute(
        "CREATE (:EpisodicMemory {memory_id: 'ep-1', content: 'x', source_label: 'ticket:42', "
        "agent_id: $agent, tags: '[]', metadata: '{}', created_at: ''})",
        {"agent": AGENT},
    )
    _fact(graph, "f-labelled", "foxtrot labelled", 0.5, source="ep-1")
    _fact(graph, "f-unknown", "foxtrot unknown source", 0.25, source="ep-missing")
    # "india": equal scores, heaviest edge first; the facts are read in neither
    # the order of the weights nor its reverse.
    _fact(graph, "i-hub", "india hub", 0.5)
    _fact(graph, "i-mid", "middle", 0.75)
    _fact(graph, "i-heavy", "heavy", 0.5)
    _fact(graph, "i-light", "light", 1.0)
    _rel(graph, "SIMILAR_TO", "i-hub", "i-light", weight=0.375, metadata="")  # 0.375
    _rel(graph, "SIMILAR_TO", "i-hub", "i-heavy", weight=0.75, metadata="")  # 0.375
    _rel(graph, "SIMILAR_TO", "i-hub", "i-mid", weight=0.5, metadata="")  # 0.375
    # "kilo": an edge without a weight scores nothing and ties with a zero weight.
    _fact(graph, "k-hub", "kilo hub", 0.5)
    _fact(graph, "k-null", "no weight", 1.0)
    _fact(graph, "k-zero", "zero weight", 1.0)
    _fact(graph, "k-some", "some weight", 0.5)
    _rel(graph, "SIMILAR_TO", "k-hub", "k-null", weight=None, metadata="")
    _rel(graph, "SIMILAR_TO", "k-hub", "k-zero", weight=0.0, metadata="")
    _rel(graph, "SIMILAR_TO", "k-hub", "k-some", weight=0.25, metadata="")  # 0.125
    _fact(graph, "k-negative", "negative weight", 1.0)
    _rel(graph, "SIMILAR_TO", "k-hub", "k-negative", weight=-0.5, metadata="")  # never
    # "lima": a zero weight read before a missing one; they tie at 0.
    _fact(graph, "l-hub", "lima hub", 0.5)
    _fact(graph, "l-zero", "zero weight", 1.0)
    _fact(graph, "l-null", "no weight", 0.5)
    _rel(graph, "SIMILAR_TO", "l-hub", "l-zero", weight=0.0, metadata="")
    _rel(graph, "SIMILAR_TO", "l-hub", "l-null", weight=None, metadata="")
    _fact(graph, "l-some", "weighed but unsure", 0.0)  # a weight, yet a score of 0 too
    _rel(graph, "SIMILAR_TO", "l-hub", "l-some", weight=0.5, metadata="")
    # "mike": a neighbour that is itself a direct match, read before another.
    _fact(graph, "m-hub", "mike hub", 0.5)
    _fact(graph, "m-also", "mike also", 0.25)
    _fact(graph, "m-next", "neighbour", 1.0)
    _rel(graph, "SIMILAR_TO", "m-hub", "m-also", weight=0.875, metadata="")
    _rel(graph, "SIMILAR_TO", "m-hub", "m-next", weight=0.5, metadata="")
    # "november": an edge into the result from a fact outside it, read first.
    _fact(graph, "n-out", "outside", 1.0)
    _fact(graph, "n-hub", "november hub", 0.5)
    _fact(graph, "n-chain", "november chain", 0.25)
    _rel(graph, "SIMILAR_TO", "n-out", "n-hub", weight=0.5, metadata="")
    _rel(graph, "SIMILAR_TO", "n-hub", "n-chain", weight=0.5, metadata="")
    # "oscar": a replacement without an index read before one whose index is text
    # (neither is a number: both count 0, the first read stays); a floor of 0.1.
    _fact(graph, "o-old", "oscar old", 0.125, created="2026-01-03")
    _fact(graph, "o-plain", "plain", 0.5, created="2026-01-01")
    _fact(graph, "o-text", "text index", 0.5, metadata=json.dumps({"temporal_index": "9"}),
          created="2026-01-02")  # fmt: skip
    _rel(graph, "SUPERSEDES", "o-plain", "o-old", reason="plain", temporal_delta="")
    _rel(graph, "SUPERSEDES", "o-text", "o-old", reason="text", temporal_delta="")
    _fact(graph, "o-zero", "zero index", 0.5, metadata=json.dumps({"temporal_index": 0}),
          created="2026-01-04")  # fmt: skip
    _rel(graph, "SUPERSEDES", "o-zero", "o-old", reason="zero", temporal_delta="")
    # Two people named Bob: the newer one is the less confident.
    _fact(graph, "g-bob-1", "likes tea", 0.75, entity="Bob Stone", created="2026-01-01")
    _fact(graph, "g-bob-2", "likes coffee", 0.5, entity="Bob Lee", created="2026-01-02")
    # "Sarah": found by entity only.
    _fact(graph, "g-sarah", "works on payments", 0.5, entity="Sarah Chen")


@pytest.fixture(scope="module")
def memory(tmp_path_factory: pytest.TempPathFactory):
    path = tmp_path_factory.mktemp("ranked") / "store"
    graph = open_graph_store(path, read_only=False, create="kuzu")
    _write_store(graph)
    graph.close()
    with HierarchicalMemory(AGENT, path, mode="read") as opened:
        yield opened


def _ranked(memory, query: str, max_nodes: int = 10, depth: int = 2, threshold: float = 0.3):
    return memory.retrieve_subgraph(query, depth, max_nodes, threshold, profile="ranked")


def _ids(subgraph) -> list[str]:
    return [n.node_id for n in subgraph.nodes]


def _by_id(subgraph) -> dict:
    return {n.node_id: n for n in subgraph.nodes}


def test_direct_matches_rank_by_content_hits_then_the_newer_fact(memory) -> None:
    found = _ranked(memory, "alpha bravo", max_nodes=4)
    assert _ids(found) == ["a-alpha", "a-bravo", "a-both", "a-concept"]
    because = {n.node_id: n.metadata["retrieved_because"] for n in found.nodes}
    assert because == {
        "a-alpha": [{"kind": "keyword", "terms": ["alpha"]}],
        "a-bravo": [{"kind": "keyword", "terms": ["bravo"]}],
        "a-both": [{"kind": "keyword", "terms": ["alpha", "bravo"]}],
        "a-concept": [{"kind": "keyword", "terms": ["alpha"]}],
    }
    assert _ids(_ranked(memory, "alpha bravo", max_nodes=2)) == ["a-alpha", "a-bravo"]


def test_chain_neighbours_then_similar_ones_at_or_above_the_threshold(memory) -> None:
    found = _ranked(memory, "charlie")
    assert _ids(found) == ["c-hub", "c-old", "c-next", "c-high", "c-in"]
    because = {n.node_id: n.metadata["retrieved_because"] for n in found.nodes}
    assert because["c-old"] == [{"kind": "supersedes_context", "of": "c-hub"}]
    assert because["c-next"] == [{"kind": "transition_context", "of": "c-hub"}]
    assert because["c-high"] == [{"kind": "similar_to", "from": "c-hub", "weight": 0.875}]
    assert because["c-in"] == [{"kind": "similar_to", "from": "c-hub", "weight": 0.75}]
    assert _ids(_ranked(memory, "charlie", threshold=0.2)) == [
        "c-hub", "c-old", "c-next", "c-high", "c-in", "c-low",
    ]  # fmt: skip


def test_an_edge_exactly_at_the_threshold_is_followed(memory) -> None:
    assert _ids(_ranked(memory, "charlie", threshold=0.75)) == [
        "c-hub", "c-old", "c-next", "c-high", "c-in",
    ]  # fmt: skip


def test_no_similar_hop_at_depth_zero_and_no_neighbours_when_direct_fills(memory) -> None:
    assert _ids(_ranked(memory, "charlie", depth=0)) == ["c-hub", "c-old", "c-next"]
    assert _ids(_ranked(memory, "charlie", max_nodes=1)) == ["c-hub"]


def test_edges_among_the_result_in_their_order_with_their_properties(memory) -> None:
    edges = _ranked(memory, "charlie").edges
    assert [(e.source_id, e.target_id, e.relationship, e.weight, e.metadata) for e in edges] == [
        ("c-hub", "c-high", "SIMILAR_TO", 0.875, {}),
        ("c-in", "c-hub", "SIMILAR_TO", 0.75, {"note": "in"}),
        ("c-hub", "c-old", "SUPERSEDES", 1.0, {"reason": "newer", "temporal_delta": ""}),
        ("c-hub", "c-next", "TRANSITIONED_TO", 1.0,
         {"from_value": None, "to_value": "5", "turn": 2, "transition_type": "update"}),
    ]  # fmt: skip


def test_a_superseded_fact_halved_once_and_placed_in_its_chain(memory) -> None:
    nodes = _by_id(_ranked(memory, "charlie"))
    old = nodes["c-old"]
    assert (old.confidence, old.metadata["superseded_by"], old.metadata["supersede_reason"]) == (
        0.45,
        "c-hub",
        "newer",
    )
    assert old.metadata["superseded"] is True
    assert "superseded" not in nodes["c-hub"].metadata
    positions = {i: nodes[i].metadata["chain_position"] for i in ("c-old", "c-hub", "c-next")}
    assert positions == {
        "c-old": "chain 1/3, superseded",
        "c-hub": "chain 2/3, current",
        "c-next": "chain 3/3, current",
    }
    assert "chain_position" not in nodes["c-high"].metadata


def test_the_newest_replacement_by_temporal_index_names_the_reason(memory) -> None:
    nodes = _by_id(_ranked(memory, "delta"))
    old = nodes["d-old"]
    assert (old.metadata["superseded_by"], old.metadata["supersede_reason"]) == ("d-new", "second")
    assert old.confidence == 0.375
    positions = {i: n.metadata["chain_position"] for i, n in nodes.items()}
    assert positions == {
        "d-old": "chain 1/3, superseded",
        "d-mid": "chain 2/3, current",
        "d-new": "chain 3/3, current",
    }
    halved = _by_id(_ranked(memory, "echo"))["e-halved"]
    assert (halved.confidence, halved.metadata["superseded_by"]) == (0.25, "e-newer")
    assert halved.metadata["supersede_reason"] == ""


def test_provenance_labels_come_from_the_episode(memory) -> None:
    nodes = _by_id(_ranked(memory, "foxtrot"))
    assert nodes["f-labelled"].metadata["source_label"] == "ticket:42"
    assert "source_label" not in nodes["f-unknown"].metadata


def test_an_entity_match_alone(memory) -> None:
    found = _ranked(memory, "Sarah")
    assert _ids(found) == ["g-sarah"]
    assert found.nodes[0].metadata["retrieved_because"] == [
        {"kind": "entity", "entity": "Sarah Chen", "query": ["sarah"]}
    ]


def test_nothing_to_look_for_returns_nothing(memory) -> None:
    retriever = Retriever(memory.graph, AGENT, set(REL_TABLES))
    assert retriever.retrieve("alpha", 0, 0.3, True).nodes == []
    assert retriever.retrieve("alpha", -1, 0.3, True).nodes == []
    assert retriever.retrieve("a an", 5, 0.3, True).nodes == []
    assert _ids(retriever.retrieve("alpha", 1, 0.3, True)) == ["a-alpha"]


def test_equal_scores_keep_the_heavier_edge_first(memory) -> None:
    india = _ranked(memory, "india")
    assert _ids(india) == ["i-hub", "i-heavy", "i-mid", "i-light"]
    assert [e.target_id for e in india.edges] == ["i-heavy", "i-mid", "i-light"]


def test_an_edge_without_a_weight_scores_nothing(memory) -> None:
    # At threshold 0 every edge is followed; a missing weight and a zero weight
    # both score 0 and keep the order the edges were read in.
    kilo = _ranked(memory, "kilo", threshold=0.0)
    assert _ids(kilo) == ["k-hub", "k-some", "k-null", "k-zero"]
    assert sorted((e.target_id, e.weight) for e in kilo.edges) == [
        ("k-null", 0.0), ("k-some", 0.25), ("k-zero", 0.0),
    ]  # fmt: skip
    # All three score 0: the weighed edge is read first, then the table's order.
    assert _ids(_ranked(memory, "lima", threshold=0.0)) == ["l-hub", "l-some", "l-zero", "l-null"]
    assert _ids(_ranked(memory, "kilo", threshold=0.1)) == ["k-hub", "k-some"]


def test_the_words_and_names_a_query_is_read_for() -> None:
    assert query_keywords("ux alpha, Bravo!") == ["alpha", "bravo"]
    assert query_keywords("the of and") == ["the", "and"]  # stop words only: kept
    assert query_entities("Al") == []
    assert query_entities("the big alpha what") == ["alpha"]
    assert query_entities("fatima's hobby") == ["fatima", "hobby"]
    assert query_entities("Sarah Chen met Bob") == ["sarah chen", "bob"]


def test_a_neighbour_that_is_a_direct_match_is_passed_over(memory) -> None:
    assert _ids(_ranked(memory, "mike")) == ["m-hub", "m-also", "m-next"]


def test_edges_from_outside_the_result_are_left_out(memory) -> None:
    found = _ranked(memory, "november", depth=0)
    assert _ids(found) == ["n-hub", "n-chain"]
    assert [(e.source_id, e.target_id) for e in found.edges] == [("n-hub", "n-chain")]


def test_a_text_temporal_index_counts_as_none(memory) -> None:
    nodes = _by_id(_ranked(memory, "oscar"))
    old = nodes["o-old"]
    assert (old.metadata["superseded_by"], old.confidence) == ("o-plain", 0.1)
    # An explicit 0 ties with no index at all: the first read stays.
    positions = {i: n.metadata["chain_position"] for i, n in nodes.items()}
    assert positions == {
        "o-plain": "chain 1/4, current",
        "o-text": "chain 2/4, current",
        "o-old": "chain 3/4, superseded",
        "o-zero": "chain 4/4, current",
    }


def test_a_content_hit_counts_against_every_keyword(memory) -> None:
    # One keyword: a content hit doubles the half a concept match scores.
    assert _ids(_ranked(memory, "alpha", max_nodes=3)) == ["a-alpha", "a-both", "a-concept"]


def test_a_word_too_short_for_a_name_is_still_a_keyword(memory) -> None:
    assert _ids(_ranked(memory, "tea")) == ["g-bob-1"]


def test_entity_matches_alone_rank_by_confidence(memory) -> None:
    assert _ids(_ranked(memory, "Bob")) == ["g-bob-1", "g-bob-2"]
    sarah = _by_id(_ranked(memory, "Sarah, and Bob"))["g-sarah"]
    assert sarah.metadata["retrieved_because"] == [
        {"kind": "entity", "entity": "Sarah Chen", "query": ["sarah"]}
    ]


def test_a_store_without_chain_or_similarity_tables(tmp_path) -> None:
    path = tmp_path / "store"
    graph = open_graph_store(path, read_only=False, create="kuzu")
    create_schema(graph)
    _fact(graph, "alone", "papa alone", 0.5)
    for rel in ("SIMILAR_TO", "SUPERSEDES", "TRANSITIONED_TO"):
        graph.execute(f"DROP TABLE {rel}")
    graph.close()
    with HierarchicalMemory(AGENT, path, mode="read") as memory:
        found = _ranked(memory, "papa")
    assert (_ids(found), found.edges) == (["alone"], [])
