"""Correcting a fact of a store memexplorer's own HierarchicalMemory wrote.

Such a store has the TRANSITIONED_TO table, and its writer also lowers the
superseded fact's confidence (halved, the old value kept in its metadata).
Expected values are worked out by hand from the three facts below.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memexplorer.memory.hierarchical_memory import HierarchicalMemory
from memexplorer.operator.backup_records import list_backups
from memexplorer.operator.correct_read import correction_request, plan_correction
from memexplorer.operator.correct_undo import undo_correction
from memexplorer.operator.correct_write import correct_fact
from memexplorer.storage.graph_open import open_graph_store

from .store_dump import dump_store, store_diff

AGENT = "ops-agent"


@pytest.fixture
def own_store(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    store = tmp_path / "agent" / "kuzu_db"
    with HierarchicalMemory(AGENT, store, mode="write") as memory:
        ids = {
            "three": memory.store_knowledge(
                "checkout-api runs 3 replicas", "checkout-api replicas", 0.9,
                tags=["capacity"], temporal_metadata={"temporal_index": 1}),
            "five": memory.store_knowledge(
                "checkout-api runs 5 replicas", "checkout-api replicas", 0.9,
                tags=["capacity"], temporal_metadata={"temporal_index": 2}),
            "grafana": memory.store_knowledge(
                "Grafana dashboards live in the ops folder", "grafana dashboards", 0.8,
                tags=["observability"]),
        }  # fmt: skip
    return store, ids


def test_correction_supersedes_transitions_and_lowers_confidence(
    own_store: tuple[Path, dict[str, str]], tmp_path: Path
) -> None:
    store, ids = own_store
    wish = correction_request(AGENT, ids["five"], "checkout-api runs 7 replicas")
    plan = plan_correction(store, wish)
    assert plan.writer == "memexplorer"
    before = dump_store(store)
    correct_fact(plan, wish, home=tmp_path / "home")
    found = store_diff(before, dump_store(store))
    node = found["node"]
    assert (node["concept"], node["content"], node["confidence"]) == (
        "checkout-api replicas", "checkout-api runs 7 replicas", 0.9)  # fmt: skip
    assert json.loads(node["metadata"]) == {"category": "semantic", "temporal_index": 3}
    assert json.loads(node["tags"]) == ["capacity"]
    # Same words, tags and concept: similarity 0.5 + 0.2 + 0.3 = 1.0 with both facts.
    assert sorted(found["edges"], key=lambda e: (e["rel"], e["target"])) == sorted([
        {"rel": "SUPERSEDES", "source": "<new>", "target": ids["five"],
         "properties": {"reason": "Updated values: 7 vs 5", "temporal_delta": "index 2 -> 3"}},
        {"rel": "TRANSITIONED_TO", "source": "<new>", "target": ids["five"],
         "properties": {"from_value": "7", "to_value": "5", "turn": 3,
                        "transition_type": "update"}},
        {"rel": "SIMILAR_TO", "source": "<new>", "target": ids["five"], "properties": {
            "weight": 1.0, "metadata": json.dumps(
                {"contradiction": True, "conflicting_values": "7 vs 5"})}},
        {"rel": "SIMILAR_TO", "source": "<new>", "target": ids["three"], "properties": {
            "weight": 1.0, "metadata": json.dumps(
                {"contradiction": True, "conflicting_values": "7 vs 3"})}},
    ], key=lambda e: (e["rel"], e["target"]))  # fmt: skip
    assert [(c["memory_id"], c["property"]) for c in found["changes"]] == [
        (ids["five"], "confidence"), (ids["five"], "metadata")]  # fmt: skip
    confidence, metadata = (c["after"] for c in found["changes"])
    assert confidence == 0.45
    assert json.loads(metadata) == {
        "category": "semantic", "temporal_index": 2, "confidence_before_supersede": 0.9,
    }  # fmt: skip
    assert [c.to_dict() for c in plan.changes] == found["changes"]


def test_undo_puts_the_lowered_confidence_back(
    own_store: tuple[Path, dict[str, str]], tmp_path: Path
) -> None:
    store, ids = own_store
    wish = correction_request(AGENT, ids["five"], "checkout-api runs 7 replicas")
    before = dump_store(store)
    result = correct_fact(plan_correction(store, wish), wish, home=tmp_path / "home")
    (kept,) = list_backups(tmp_path / "home")
    assert not kept.restored
    undone = undo_correction(result.backup.path)
    assert (undone.edges_removed, undone.properties_restored) == (4, 2)
    nodes, edges = dump_store(store)
    assert nodes == before[0]
    assert sorted(edges) == sorted(before[1])
    # The Backups list says it was undone (it said "restored: no", as if still written).
    (kept,) = list_backups(tmp_path / "home")
    assert kept.restored and kept.restored_at


def test_the_chain_shows_the_correction_as_its_current_value(
    own_store: tuple[Path, dict[str, str]], tmp_path: Path
) -> None:
    from memexplorer.operator.chains import fact_chain

    store, ids = own_store
    wish = correction_request(AGENT, ids["five"], "checkout-api runs 7 replicas")
    correct_fact(plan_correction(store, wish), wish, home=tmp_path / "home")
    with open_graph_store(store) as graph:
        chain = fact_chain(graph, AGENT, ids["three"])
    assert [s.memory_id for s in chain.steps] == [ids["three"], ids["five"], wish.node_id]
    assert [s.current for s in chain.steps] == [False, False, True]
    assert chain.steps[-1].value == "7"
    assert chain.steps[-1].previous_value == "5"


def test_the_demo_home_graph_db_is_memexplorer_s_own(tmp_path: Path) -> None:
    """The demo home's Kuzu graph_db stores are memexplorer's (amplihack-rs's graph_db is
    LadybugDB): the correction transitions from 12 to 10 and halves the old confidence."""
    from memexplorer.operator.demo import write_demo_home

    home = write_demo_home(tmp_path / ".amplihack")
    store = home / "hierarchical_memory" / "ops-agent" / "graph_db"
    with open_graph_store(store) as graph:
        [[old_id, confidence]] = graph.rows(
            "MATCH (m:SemanticMemory) WHERE m.content = $c RETURN m.memory_id, m.confidence",
            {"c": "checkout-api runs 12 replicas in production"},
        )
    wish = correction_request(AGENT, old_id, "checkout-api runs 10 replicas in production")
    plan = plan_correction(store, wish)
    assert plan.writer == "memexplorer"
    transition = next(e for e in plan.edges if e.rel == "TRANSITIONED_TO")
    assert (transition.target, transition.properties["from_value"],
            transition.properties["to_value"]) == (old_id, "10", "12")  # fmt: skip
    lowered = plan.changes[0]
    assert (lowered.memory_id, lowered.property, lowered.before, lowered.after) == (
        old_id, "confidence", confidence, confidence / 2)  # fmt: skip


def test_the_correction_writes_what_store_knowledge_writes(tmp_path: Path) -> None:
    """On memexplorer's own store, its writer is the oracle: HierarchicalMemory's
    store_knowledge with the same call, on a copy, adds the same rows and edges."""
    import shutil

    from memexplorer.operator.demo import write_demo_home

    home = write_demo_home(tmp_path / "a" / ".amplihack")
    store = home / "hierarchical_memory" / "ops-agent" / "graph_db"
    twin = tmp_path / "b" / "graph_db"
    twin.parent.mkdir()
    shutil.copy(store, twin)
    with open_graph_store(store) as graph:
        [[old_id]] = graph.rows(
            "MATCH (m:SemanticMemory) WHERE m.content = $c RETURN m.memory_id",
            {"c": "checkout-api runs 12 replicas in production"},
        )
    wish = correction_request(AGENT, old_id, "checkout-api runs 10 replicas in production")
    plan = plan_correction(store, wish)
    before = dump_store(store)
    correct_fact(plan, wish, home=tmp_path / "backups")
    corrected = store_diff(before, dump_store(store))
    with HierarchicalMemory(AGENT, twin) as memory:
        memory.store_knowledge(**plan.call)
    stored = store_diff(before, dump_store(twin))
    assert (corrected["node"], corrected["changes"]) == (stored["node"], stored["changes"])
    assert sorted(map(json.dumps, corrected["edges"])) == sorted(map(json.dumps, stored["edges"]))
