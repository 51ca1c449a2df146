"""Each step of the ``library`` profile on a store built for it, answers worked out by hand.

The store is written directly (facts, SIMILAR_TO and SUPERSEDES edges in a known
table order) and every expected answer below follows from amplihack-memory-lib's
retrieve_subgraph (4ae0813) read line by line: a ``LIMIT max(3*max_nodes, 60)``
window per keyword in table order, a row whose JSON ``json.loads`` rejects ending
that window (its try/except wraps the whole loop), expansion that stops once
``max_nodes`` ids are seen, two hops whenever ``max_depth >= 2``, the score
``confidence * (0.5 + 0.5 * hits / len(words))`` where only words longer than two
characters count as hits, and a superseded fact marked with the newer fact its
own ``LIMIT 1`` query names and its confidence halved, never below 0.1.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from memexplorer.memory.hierarchical_memory import HierarchicalMemory
from memexplorer.memory.hierarchical_schema import create_schema
from memexplorer.memory.library_queries import (
    ENTITY_QUERY,
    HOP_QUERY,
    KEYWORD_QUERY,
    SUPERSEDED_QUERY,
)
from memexplorer.memory.retrieval_library import LibraryRetriever
from memexplorer.storage.graph_open import open_graph_store
from memexplorer.storage.graph_store import QueryError

from .hand_built import AGENT, add_edge, add_fact


def _fact(graph, fact_id: str, content: str, confidence: float, **extra: str) -> None:
    add_fact(graph, fact_id, content, confidence, created=f"written {fact_id}", **extra)


def _similar(graph, source: str, target: str, weight: float, metadata: str = "") -> None:
    add_edge(graph, "SIMILAR_TO", source, target, weight=weight, metadata=metadata)


def _supersedes(graph, newer: str, older: str, reason: str) -> None:
    add_edge(graph, "SUPERSEDES", newer, older, reason=reason, temporal_delta="")


def _write_store(graph) -> None:
    create_schema(graph)
    for n in range(61):  # the 60th and 61st written are the most confident
        _fact(graph, f"echo-{n:02d}", f"echo report {n}", {59: 0.9, 60: 1.0}.get(n, 0.5))
    _fact(graph, "golf-one", "golf one", 0.8)
    _fact(graph, "golf-alpha", "golf alpha", 0.7)
    _fact(graph, "hotel-seed", "hotel seed", 0.9)
    _fact(graph, "hop-one", "neighbour one", 0.5, metadata="")
    _fact(graph, "hop-two", "neighbour two", 0.5)
    _similar(graph, "hotel-seed", "hop-one", 0.7, '{"contradiction": true}')
    _similar(graph, "hop-one", "hop-two", 0.6)
    _fact(graph, "juliet", "juliet holds the keys", 0.6, entity="juliet")
    _fact(graph, "kilo-old", "kilo limit is 5", 0.15)
    _fact(graph, "kilo-new", "kilo limit is 7", 0.9)
    _supersedes(graph, "kilo-new", "kilo-old", "corrected")
    _fact(graph, "lima-old", "lima port is 80", 0.6)
    _fact(graph, "lima-new-1", "lima port is 81", 0.7)
    _fact(graph, "lima-new-2", "lima port is 82", 0.8)
    _supersedes(graph, "lima-new-1", "lima-old", "first")
    _supersedes(graph, "lima-new-2", "lima-old", "second")
    _fact(graph, "mike-0", "mike zero", 0.5)
    _fact(graph, "mike-1", "mike one", 0.5, tags="not json")
    _fact(graph, "mike-2", "mike two", 0.9)
    _fact(graph, "november", "november seed", 0.9)
    _fact(graph, "nov-bad", "unreadable", 0.5, tags="not json")
    _fact(graph, "nov-good", "readable", 0.5)
    _similar(graph, "november", "nov-bad", 0.5)
    _similar(graph, "november", "nov-good", 0.5)
    _fact(graph, "oscar", "oscar seed", 0.9)
    _fact(graph, "oscar-friend", "friend", 0.5)
    _similar(graph, "oscar", "oscar-friend", 0.4, "not json")
    _fact(graph, "papa-1", "papa first", 0.9)
    _fact(graph, "papa-2", "papa second", 0.8)
    _fact(graph, "quebec-1", "first neighbour", 0.2)
    _fact(graph, "quebec-2", "second neighbour", 0.2)
    _similar(graph, "papa-1", "quebec-1", 0.5)
    _similar(graph, "papa-2", "quebec-2", 0.5)
    for n in range(130):  # more than two windows' worth: one scan cannot decide them
        _fact(graph, f"zulu-{n:03d}", f"zulu note {n}", 0.3)
    _fact(graph, "yankee", "yankee hub", 0.9)
    for n in range(300):  # more neighbours than max_nodes, the later ones more confident
        _fact(graph, f"spoke-{n:03d}", f"spoke {n}", 0.1 + n / 1000)
        _similar(graph, "yankee", f"spoke-{n:03d}", 0.5)


@pytest.fixture(scope="module")
def memory(tmp_path_factory: pytest.TempPathFactory):
    path = tmp_path_factory.mktemp("steps") / "store"
    graph = open_graph_store(path, read_only=False, create="kuzu")
    _write_store(graph)
    graph.close()
    with HierarchicalMemory(AGENT, path, mode="read") as opened:
        yield opened


class Recording:
    """The store's connection, recording every query asked and answering some itself."""

    def __init__(self, graph, answers: dict[str, Any] | None = None) -> None:
        self._graph = graph
        self._answers = answers or {}
        self.asked: list[str] = []

    def rows(self, cypher: str, params: dict[str, Any] | None = None, **options: Any):
        self.asked.append(cypher)
        if cypher in self._answers:
            return self._answers[cypher](self._graph, cypher, params, **options)
        return self._graph.rows(cypher, params, **options)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._graph, name)

    def count(self, text: str) -> int:
        return sum(1 for cypher in self.asked if text in cypher)


def _ids(subgraph) -> list[str]:
    return [n.node_id for n in subgraph.nodes]


def _node(subgraph, node_id: str):
    return next(n for n in subgraph.nodes if n.node_id == node_id)


def test_a_window_holds_sixty_rows_in_table_order(memory) -> None:
    first_nineteen = [f"echo-{n:02d}" for n in range(19)]
    assert _ids(memory.retrieve_subgraph("echo")) == ["echo-59", *first_nineteen]
    assert _ids(memory.retrieve_subgraph("echo", 2, 20)) == ["echo-59", *first_nineteen]


def test_a_window_grows_with_max_nodes_past_twenty(memory) -> None:
    # max_nodes 21: a window of 63 rows reaches the 61st fact written.
    expected = ["echo-60", "echo-59", *(f"echo-{n:02d}" for n in range(19))]
    assert _ids(memory.retrieve_subgraph("echo", 2, 21)) == expected


def test_words_of_two_characters_or_fewer_are_never_hits(memory) -> None:
    # golf-one 0.8 * (0.5 + 0.5 * 1/2) = 0.6 beats golf-alpha 0.7 * 0.75 = 0.525;
    # counting "a" as a hit would give golf-alpha 0.7.
    assert _ids(memory.retrieve_subgraph("a golf", 2, 5)) == ["golf-one", "golf-alpha"]


def test_two_hops_at_any_depth_from_two_and_one_hop_at_depth_one(memory) -> None:
    for depth in (2, 3):
        found = memory.retrieve_subgraph("hotel", depth, 5)
        assert _ids(found) == ["hotel-seed", "hop-one", "hop-two"]
        edges = [(e.source_id, e.target_id, e.relationship, e.weight) for e in found.edges]
        assert edges == [
            ("hotel-seed", "hop-one", "SIMILAR_TO", 0.7),
            ("hotel-seed", "hop-two", "SIMILAR_TO", 0.6),
        ]
        assert found.edges[0].metadata == {"contradiction": True}
        assert found.edges[1].metadata == {}
    assert _ids(memory.retrieve_subgraph("hotel", 1, 5)) == ["hotel-seed", "hop-one"]


def test_each_node_says_why_it_was_retrieved(memory) -> None:
    found = memory.retrieve_subgraph("hotel", 2, 5)
    because = {n.node_id: n.metadata["retrieved_because"] for n in found.nodes}
    assert because == {
        "hotel-seed": [{"kind": "keyword", "terms": ["hotel"]}],
        "hop-one": [{"kind": "similar_to", "from": "hotel-seed", "weight": 0.7}],
        "hop-two": [{"kind": "similar_to", "from": "hotel-seed", "weight": 0.6}],
    }
    juliet = _node(memory.retrieve_subgraph("juliet", 2, 5), "juliet")
    assert juliet.metadata["retrieved_because"] == [
        {"kind": "entity", "entity": "juliet", "query": ["juliet"]},
        {"kind": "keyword", "terms": ["juliet"]},
    ]


def test_expansion_stops_once_max_nodes_ids_are_seen(memory) -> None:
    found = memory.retrieve_subgraph("papa", 2, 3)
    assert _ids(found) == ["papa-1", "papa-2", "quebec-1"]
    assert [(e.source_id, e.target_id) for e in found.edges] == [("papa-1", "quebec-1")]


def test_a_superseded_fact_is_marked_and_its_confidence_halved_to_no_less_than_a_tenth(
    memory,
) -> None:
    found = memory.retrieve_subgraph("kilo", 2, 5)
    assert _ids(found) == ["kilo-new", "kilo-old"]
    old = _node(found, "kilo-old")
    assert old.confidence == 0.1
    assert {k: old.metadata[k] for k in ("superseded", "superseded_by", "supersede_reason")} == {
        "superseded": True,
        "superseded_by": "kilo-new",
        "supersede_reason": "corrected",
    }
    assert "superseded" not in _node(found, "kilo-new").metadata


def _last_newer_fact(graph, cypher, params, **options):
    """SUPERSEDED_QUERY answered with the newer fact the batch would list last."""
    rows = graph.rows(
        "MATCH (n:SemanticMemory)-[r:SUPERSEDES]->(o:SemanticMemory {memory_id: $nid}) "
        "RETURN n.memory_id, r.reason, r.temporal_delta ORDER BY n.memory_id DESC LIMIT 1",
        params,
    )
    return rows


def test_with_several_newer_facts_the_librarys_own_limit_one_query_names_it(memory) -> None:
    recording = Recording(memory.graph, {SUPERSEDED_QUERY: _last_newer_fact})
    found = LibraryRetriever(recording, AGENT).retrieve("lima", 2, 5)
    old = _node(found, "lima-old")
    assert (old.metadata["superseded_by"], old.metadata["supersede_reason"]) == (
        "lima-new-2",
        "second",
    )
    assert old.confidence == 0.3
    assert recording.count(SUPERSEDED_QUERY) == 1
    single = Recording(memory.graph)
    LibraryRetriever(single, AGENT).retrieve("kilo", 2, 5)
    assert single.count(SUPERSEDED_QUERY) == 0  # one newer fact: the batch already says it


def test_an_undecodable_row_ends_its_window_on_a_kuzu_store(memory) -> None:
    assert _ids(memory.retrieve_subgraph("mike", 2, 5)) == ["mike-0"]


def test_an_undecodable_neighbour_ends_that_seeds_expansion(memory) -> None:
    found = memory.retrieve_subgraph("november", 2, 5)
    assert _ids(found) == ["november"]
    assert found.edges == []


def test_undecodable_edge_metadata_reads_as_empty(memory) -> None:
    found = memory.retrieve_subgraph("oscar", 2, 5)
    assert _ids(found) == ["oscar", "oscar-friend"]
    assert [(e.target_id, e.metadata) for e in found.edges] == [("oscar-friend", {})]


def test_windows_one_scan_decides_are_never_asked_again(memory) -> None:
    recording = Recording(memory.graph)
    LibraryRetriever(recording, AGENT).retrieve("echo", 2, 20)
    assert recording.count("offset(id(m))") == 1
    assert recording.count(KEYWORD_QUERY) == recording.count(ENTITY_QUERY) == 0


def test_words_that_fill_the_scan_are_asked_the_librarys_way(memory) -> None:
    recording = Recording(memory.graph)
    found = LibraryRetriever(recording, AGENT).retrieve("zulu", 2, 20)
    assert _ids(found) == [f"zulu-{n:03d}" for n in range(20)]
    # Both windows in one scan hit the cap; the entity window alone is decided.
    assert recording.count("offset(id(m))") == 2
    assert (recording.count(ENTITY_QUERY), recording.count(KEYWORD_QUERY)) == (0, 1)


def test_a_cancelled_query_is_not_taken_for_a_missing_table(memory) -> None:
    def cancelled(graph, cypher, params, **options):
        raise QueryError("The query was cancelled.")

    recording = Recording(memory.graph, {HOP_QUERY: cancelled})
    with pytest.raises(QueryError, match="cancelled"):
        LibraryRetriever(recording, AGENT).retrieve("hotel", 2, 5)


def test_a_store_without_similar_to_still_answers_with_its_seeds(tmp_path: Path) -> None:
    path = tmp_path / "store"
    graph = open_graph_store(path, read_only=False, create="kuzu")
    create_schema(graph)
    _fact(graph, "sierra", "sierra alone", 0.8)
    graph.execute("DROP TABLE SIMILAR_TO")
    graph.close()
    with HierarchicalMemory(AGENT, path, mode="read") as memory:
        found = memory.retrieve_subgraph("sierra", 2, 5)
    assert _ids(found) == ["sierra"]
    assert found.edges == []


def test_expansion_stops_at_max_nodes_however_large(memory) -> None:
    # 299 of the hub's 300 neighbours are reached before max_nodes (300) ids are
    # seen; every row still gives its edge, and the last spoke is never a node.
    found = memory.retrieve_subgraph("yankee", 1, 300)
    spokes = [f"spoke-{n:03d}" for n in range(299)]
    assert _ids(found) == ["yankee", *reversed(spokes)]
    assert len(found.edges) == 300
