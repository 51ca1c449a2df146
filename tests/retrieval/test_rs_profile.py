"""The ``amplihack-rs`` profile: the Rust GraphRagRetriever's own tests, ported, and
cases computed by hand from its code (graph_rag_retriever.rs)."""

from __future__ import annotations

from pathlib import Path

import pytest

from memexplorer.memory.hierarchical_memory import HierarchicalMemory
from memexplorer.memory.hierarchical_schema import create_schema
from memexplorer.memory.retrieval_rs import RsRetriever, rs_keywords
from memexplorer.storage.graph_open import open_graph_store

AGENT = "test-agent"


@pytest.fixture
def rust_memory(tmp_path: Path):
    """build_memory() of the Rust tests: two photosynthesis facts and a physics one."""
    with HierarchicalMemory(AGENT, tmp_path / "agent", mode="write") as memory:
        memory.store_knowledge(
            "photosynthesis converts light energy plants chlorophyll", "Biology", 0.9
        )
        memory.store_knowledge("photosynthesis light energy plants produce oxygen", "Biology", 0.85)
        memory.store_knowledge(
            "quantum tunneling allows particles to pass barriers", "Physics", 0.8
        )
        yield memory


def retriever(memory: HierarchicalMemory) -> RsRetriever:
    return RsRetriever(memory.graph, AGENT, memory.rel_tables())


def test_keyword_search_basic(rust_memory):
    nodes = retriever(rust_memory).keyword_search("photosynthesis", 10)
    assert len(nodes) == 2 and all(n.concept == "Biology" for n in nodes)


def test_keyword_search_empty_and_no_match(rust_memory):
    assert retriever(rust_memory).keyword_search("", 10) == []
    assert retriever(rust_memory).keyword_search("nonexistent", 10) == []


def test_similar_to_expand_finds_neighbors(rust_memory):
    seeds = retriever(rust_memory).keyword_search("photosynthesis", 1)
    assert seeds
    assert retriever(rust_memory).similar_to_expand(seeds[0].node_id, 0.1)


def test_retrieve_subgraph_full_empty_and_max_nodes(rust_memory):
    full = retriever(rust_memory).retrieve("photosynthesis light", 2, 20, 0.1)
    assert full.nodes and full.query == "photosynthesis light"
    assert retriever(rust_memory).retrieve("", 2, 20, 0.3).nodes == []
    assert len(retriever(rust_memory).retrieve("photosynthesis quantum", 2, 1, 0.1).nodes) <= 1


FACTS = [  # id, content, confidence, in the order written
    ("A", "alpha beta", 0.9),
    ("B", "alpha only", 0.7),
    ("C", "gamma ray", 0.8),
    ("D", "delta wing", 0.95),
    ("E", "alpha again", 0.6),
    ("F", "caféa shop", 0.5),
    ("G", "alpha tie", 0.7),
]
EDGES = [("C", "A", 0.5), ("A", "D", 0.2), ("D", "F", 0.9)]  # source, target, weight


@pytest.fixture
def hand_memory(tmp_path: Path):
    """Facts and SIMILAR_TO edges written directly, so every weight is known."""
    path = tmp_path / "hand_db"
    graph = open_graph_store(path, read_only=False, create="kuzu")
    create_schema(graph)
    for number, (fact_id, content, confidence) in enumerate(FACTS):
        graph.execute(
            "CREATE (:SemanticMemory {memory_id: $id, concept: 'c', content: $content, "
            "confidence: $confidence, source_id: '', agent_id: $agent, tags: '[]', "
            "metadata: '{}', created_at: $at, entity_name: ''})",
            {"id": fact_id, "content": content, "confidence": confidence, "agent": AGENT,
             "at": f"2026-01-01T00:00:0{number}"},
        )  # fmt: skip
    for source, target, weight in EDGES:
        graph.execute(
            "MATCH (a:SemanticMemory {memory_id: $a}), (b:SemanticMemory {memory_id: $b}) "
            "CREATE (a)-[:SIMILAR_TO {weight: $w, metadata: ''}]->(b)",
            {"a": source, "b": target, "w": weight},
        )
    graph.close()
    with HierarchicalMemory(AGENT, path, mode="read") as memory:
        yield memory


def ids(memory: HierarchicalMemory, query: str, depth: int, max_nodes: int) -> list[str]:
    sub = memory.retrieve_subgraph(query, depth, max_nodes, 0.3, profile="amplihack-rs")
    return [n.node_id for n in sub.nodes]


def test_keywords_are_whitespace_words_longer_than_two_bytes():
    assert rs_keywords("Alpha zz éa a,b\tthe") == ["Alpha", "éa", "a,b", "the"]


def test_seeds_fill_max_nodes_so_nothing_is_expanded(hand_memory):
    # "alpha": A .9, B .7, G .7 (tie: written first wins), E .6; top 3 are A, B, G
    assert ids(hand_memory, "Alpha zz", 2, 3) == ["A", "B", "G"]


def test_expansion_follows_incoming_edges_above_the_threshold(hand_memory):
    # seeds A, B, G, E; A's neighbours: C (C->A, 0.5, other direction); D (0.2) is below
    sub = hand_memory.retrieve_subgraph("alpha", 2, 5, 0.3, profile="amplihack-rs")
    assert [n.node_id for n in sub.nodes] == ["A", "C", "B", "G", "E"]
    assert [(e.source_id, e.target_id, e.weight) for e in sub.edges] == [("A", "C", 0.5)]


def test_a_second_round_expands_the_first_rounds_finds(hand_memory):
    # "delta": D; round 1 -> F (0.9) and A (0.2 < 0.3 is skipped); round 2 from F: D seen
    assert ids(hand_memory, "delta", 2, 10) == ["D", "F"]
    assert ids(hand_memory, "delta", 2, 10) == ids(hand_memory, "delta", 1, 10)


def test_a_three_byte_word_of_two_letters_is_a_keyword(hand_memory):
    assert ids(hand_memory, "éa", 0, 10) == ["F"]
