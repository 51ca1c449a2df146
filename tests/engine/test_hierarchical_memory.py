"""HierarchicalMemory written by memexplorer: store steps, chains, API behaviours."""

from __future__ import annotations

import pytest

from memexplorer.memory.hierarchical_memory import (
    HierarchicalMemory,
    KnowledgeSubgraph,
    MemoryCategory,
    MemoryClassifier,
)
from memexplorer.storage.exceptions import AgentNameError, ReadOnlyStoreError

VALUES = (3, 4, 6, 8, 12)


@pytest.fixture
def memory(tmp_path):
    with HierarchicalMemory("tester", tmp_path / "store") as mem:
        yield mem


def _store_chain(memory, values=VALUES, order=None):
    ids = {}
    for turn in order or range(1, len(values) + 1):
        ids[turn] = memory.store_knowledge(
            f"checkout-api runs {values[turn - 1]} replicas",
            "checkout-api replicas",
            0.9,
            temporal_metadata={"temporal_index": turn},
        )
    return ids


def _edges(memory, rel):
    return {
        tuple(row)
        for row in memory.graph.rows(
            f"MATCH (a:SemanticMemory)-[r:{rel}]->(b:SemanticMemory) "
            "RETURN a.memory_id, b.memory_id"
        )
    }


def test_five_value_chain_has_supersedes_and_transitions_in_order(memory):
    ids = _store_chain(memory)
    timeline = {(ids[t + 1], ids[t]) for t in range(1, 5)}
    assert _edges(memory, "SUPERSEDES") == timeline
    assert _edges(memory, "TRANSITIONED_TO") == timeline
    rows = memory.graph.rows(
        "MATCH (a)-[r:TRANSITIONED_TO]->(b) RETURN r.turn, r.from_value, r.to_value, "
        "r.transition_type ORDER BY r.turn"
    )
    assert rows == [[2, "4", "3", "update"], [3, "6", "4", "update"],
                    [4, "8", "6", "update"], [5, "12", "8", "update"]]  # fmt: skip
    subgraph = memory.retrieve_subgraph("checkout-api replicas", profile="ranked")
    ordered = sorted(subgraph.nodes, key=lambda n: n.metadata["temporal_index"])
    assert [n.node_id for n in ordered] == [ids[t] for t in range(1, 6)]
    assert ordered[-1].metadata["chain_position"] == "chain 5/5, current"
    assert ordered[0].metadata["superseded_by"] == ids[2]
    context = subgraph.to_llm_context(chronological=True)
    assert "Value transitions" in context and "3 -> 4" in context and "8 -> 12" in context


def test_superseded_fact_confidence_is_lowered_once(memory):
    ids = _store_chain(memory, values=(1, 2, 3))
    facts = {n.node_id: n for n in memory.get_all_knowledge()}
    assert facts[ids[3]].confidence == pytest.approx(0.9)
    assert facts[ids[1]].confidence == pytest.approx(0.45)
    assert facts[ids[1]].metadata["confidence_before_supersede"] == pytest.approx(0.9)
    retrieved = {n.node_id: n for n in memory.retrieve_subgraph("replicas", profile="ranked").nodes}
    assert retrieved[ids[1]].confidence == pytest.approx(0.45)  # not halved again


def test_out_of_order_fact_slots_into_the_timeline(memory):
    ids = _store_chain(memory, values=(10, 20, 30), order=[1, 3, 2])
    assert (ids[2], ids[1]) in _edges(memory, "TRANSITIONED_TO")
    assert (ids[3], ids[2]) in _edges(memory, "TRANSITIONED_TO")


def test_provenance_and_similarity_edges(memory):
    episode = memory.store_episode("Design review of the billing service", "meeting-notes")
    first = memory.store_knowledge(
        "Billing service stores invoices in Postgres", "billing storage", source_id=episode
    )
    second = memory.store_knowledge(
        "Billing service stores receipts in Postgres", "billing storage"
    )
    assert memory.graph.rows("MATCH (s)-[:DERIVES_FROM]->(e) RETURN s.memory_id, e.memory_id") == [
        [first, episode]
    ]
    assert (second, first) in _edges(memory, "SIMILAR_TO")
    node = next(n for n in memory.retrieve_subgraph("invoices").nodes if n.node_id == first)
    assert node.metadata["source_label"] == "meeting-notes"
    assert node.metadata["retrieved_because"] == [{"kind": "keyword", "terms": ["invoices"]}]


def test_similarity_only_against_fifty_most_recent(memory):
    first = memory.store_knowledge("Zebra migration pattern alpha", "zebra migration")
    for number in range(50):
        memory.store_knowledge(f"Unrelated filler number {number} text", f"filler {number}")
    last = memory.store_knowledge("Zebra migration pattern alpha", "zebra migration")
    assert (last, first) not in _edges(memory, "SIMILAR_TO")


def test_similar_hop_reason_names_its_origin(memory):
    seed = memory.store_knowledge("Kafka cluster uses three brokers", "kafka brokers", tags=["k"])
    hop = memory.store_knowledge("Kafka brokers sit behind three zones", "kafka zones", tags=["k"])
    result = memory.retrieve_subgraph("cluster", profile="ranked")
    reasons = {n.node_id: n.metadata["retrieved_because"] for n in result.nodes}
    assert reasons[seed][0]["kind"] == "keyword"
    assert reasons[hop][0]["kind"] == "similar_to" and reasons[hop][0]["from"] == seed


def test_api_contract(memory):
    assert memory.retrieve_subgraph("").nodes == []
    with pytest.raises(ValueError, match="cannot be empty"):
        memory.store_knowledge("   ")
    nid = memory.store_fact("Python was created by Guido van Rossum", "python-history")
    facts = memory.search_facts("python")
    assert facts[0]["node_id"] == nid
    assert set(facts[0]) == {"content", "concept", "confidence", "node_id", "source_id",
                             "tags", "metadata", "created_at"}  # fmt: skip
    for n in range(4):
        memory.store_fact(f"fact number {n}", "numbers")
    assert len(memory.get_all_facts(limit=3)) == 3
    assert memory.retrieve_by_entity("guido van rossum")[0].node_id == nid
    assert memory.retrieve_by_entity("nobody") == []
    assert memory.search_by_concept([]) == []
    assert memory.execute_aggregation("count_total") == {"count": 5, "query_type": "count_total"}
    entities = memory.execute_aggregation("list_entities")
    assert entities["items"] == ["guido"] and entities["count"] == 1
    stats = memory.get_statistics()
    assert stats["semantic_nodes"] == 5 and stats["total_experiences"] == 5
    assert KnowledgeSubgraph().to_llm_context() == "No relevant knowledge found."


def test_discoveries(tmp_path):
    path = tmp_path / "d"
    HierarchicalMemory.store_discovery(path, "scout", {"type": "broken_link", "content": "404"})
    found = HierarchicalMemory.get_recent_discoveries(path, "scout")
    assert found[0]["type"] == "broken_link" and found[0]["content"] == "404"


@pytest.mark.parametrize(
    ("text", "category"),
    [
        ("Step 1: clone the repo", MemoryCategory.PROCEDURAL),
        ("We plan to migrate next quarter", MemoryCategory.PROSPECTIVE),
        ("The outage happened at noon", MemoryCategory.EPISODIC),
        ("Paris is in France", MemoryCategory.SEMANTIC),
    ],
)
def test_classifier(text, category):
    assert MemoryClassifier().classify(text) is category


@pytest.mark.parametrize("name", ["", "  ", "../etc", "a/b", "a\\b", "-lead", "x" * 65, "a b"])
def test_bad_agent_names(tmp_path, name):
    with pytest.raises(AgentNameError) as raised:
        HierarchicalMemory(name, tmp_path / "s")
    assert isinstance(raised.value, ValueError)
    assert ("cannot be empty" in str(raised.value)) or ("alphanumeric" in str(raised.value))
    assert not (tmp_path / "s").exists()


def test_read_mode_refuses_writes(tmp_path):
    path = tmp_path / "s"
    HierarchicalMemory("a", path).close()
    with HierarchicalMemory("a", path, mode="read") as memory, pytest.raises(ReadOnlyStoreError):
        memory.store_knowledge("x", "y")


def test_agents_in_one_store_are_isolated(tmp_path):
    path = tmp_path / "shared"
    with HierarchicalMemory("alpha", path) as memory:
        memory.store_knowledge("Alpha secret plan number 1", "plans")
    with HierarchicalMemory("beta", path) as memory:
        memory.store_knowledge("Beta plan number 2", "plans")
        assert [n.content for n in memory.retrieve_subgraph("plan").nodes] == ["Beta plan number 2"]
        assert memory.export_to_json()["statistics"]["semantic_node_count"] == 1
