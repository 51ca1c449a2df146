"""The reference library's stores open read-only, unchanged, with MANIFEST's counts."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from memexplorer.memory.hierarchical_memory import HierarchicalMemory
from memexplorer.memory.inspection import summarize_store
from memexplorer.storage.stores import find_stores

HIERARCHICAL = [
    "home/.amplihack/hierarchical_memory/ops-agent/kuzu_db",
    "home/.amplihack/hierarchical_memory/research-agent/kuzu_db",
    "home/.amplihack/hierarchical_memory/support-bot/kuzu_db",
    "home_fresh_default/.amplihack/hierarchical_memory/fresh-agent",
    "shared_two_agents/kuzu_db",
]


def _digest(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def _expected_counts(manifest: dict, store: str) -> dict[str, dict[str, int]]:
    inventory = manifest["databases"][store]["inventory"]
    expected: dict[str, dict[str, int]] = {}
    for table, info in inventory.get("node_tables", {}).items():
        for agent, count in info["per_agent"].items():
            expected.setdefault(agent, {})[table] = count
    for table, info in inventory.get("rel_tables", {}).items():
        for agent in list(expected):
            expected[agent][table] = info["per_agent_of_source"].get(agent, 0)
    return expected


@pytest.mark.parametrize("store", HIERARCHICAL)
def test_hierarchical_counts_match_manifest(reference_stores, manifest, store):
    summary = summarize_store(reference_stores / store)
    assert summary.kind == "hierarchical"
    assert summary.engine == "kuzu"
    assert summary.storage_version == 39
    assert summary.agents == _expected_counts(manifest, store)
    assert summary.absent_tables == ["TRANSITIONED_TO"]


def test_every_store_found_in_the_tarball(reference_stores, manifest):
    found = {str(f.path.relative_to(reference_stores)) for f in find_stores(reference_stores)}
    assert found == set(manifest["databases"])


def test_reading_changes_no_file(reference_stores, expected_retrieval):
    before = _digest(reference_stores)
    for fmt in find_stores(reference_stores):
        summarize_store(fmt)
    for agent, queries in expected_retrieval["agents"].items():
        path = reference_stores / "home/.amplihack/hierarchical_memory" / agent
        with HierarchicalMemory(agent, path) as memory:
            assert memory.read_only
            for query in queries:
                memory.retrieve_subgraph(query["query"]).to_llm_context()
            memory.export_to_json()
            memory.get_statistics()
    assert _digest(reference_stores) == before


def test_library_statistics_match(reference_stores, manifest):
    for store in HIERARCHICAL:
        entry = manifest["databases"][store]
        for agent, expected in entry["library_statistics"].items():
            with HierarchicalMemory(agent, reference_stores / store, mode="read") as memory:
                stats = memory.get_statistics()
            for key, value in expected.items():
                assert stats[key] == value, (store, agent, key)


@pytest.mark.parametrize("agent", ["ops-agent", "research-agent", "support-bot"])
def test_retrieval_is_the_libraries_exactly(reference_stores, expected_retrieval, agent):
    """The default (library) profile: the reference's node ids in its order, its edges."""
    path = reference_stores / "home/.amplihack/hierarchical_memory" / agent
    with HierarchicalMemory(agent, path, mode="read") as memory:
        for query in expected_retrieval["agents"][agent]:
            subgraph = memory.retrieve_subgraph(query["query"])
            assert [node.node_id for node in subgraph.nodes] == query["node_ids"], query["query"]
            edges = {(e.source_id, e.target_id, e.relationship) for e in subgraph.edges}
            assert sorted(edges) == sorted(tuple(e) for e in query["edges"]), query["query"]


def test_export_matches_reference_export(reference_stores):
    exports = reference_stores / "exports"
    for store, agent, name in [
        (HIERARCHICAL[0], "ops-agent", "ops-agent"),
        (HIERARCHICAL[1], "research-agent", "research-agent"),
        (HIERARCHICAL[2], "support-bot", "support-bot"),
        (HIERARCHICAL[4], "triage-bot", "shared_two_agents.triage-bot"),
        (HIERARCHICAL[4], "escalation-bot", "shared_two_agents.escalation-bot"),
    ]:
        reference = json.loads((exports / f"{name}.export_to_json.json").read_text())
        with HierarchicalMemory(agent, reference_stores / store, mode="read") as memory:
            mine = memory.export_to_json()
        assert mine["format_version"] == "1.0"
        for key in ("semantic_nodes", "episodic_nodes"):
            assert sorted(mine[key], key=lambda n: n["memory_id"]) == sorted(
                reference[key], key=lambda n: n["memory_id"]
            )
        for key in ("similar_to_edges", "derives_from_edges", "supersedes_edges"):
            assert sorted(map(json.dumps, mine[key])) == sorted(map(json.dumps, reference[key]))
        assert mine["statistics"] == reference["statistics"]
