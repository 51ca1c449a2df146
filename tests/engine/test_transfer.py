"""Exports import into fresh stores and export back unchanged; bad data writes nothing."""

from __future__ import annotations

import copy
import hashlib
import json

import pytest

from memexplorer.memory.hierarchical_memory import HierarchicalMemory
from memexplorer.memory.hierarchical_transfer import validate_export
from memexplorer.storage.exceptions import ImportDataError

EXPORTS = [
    "ops-agent",
    "research-agent",
    "support-bot",
    "shared_two_agents.triage-bot",
    "shared_two_agents.escalation-bot",
]
GRAPH_KEYS = (
    "semantic_nodes",
    "episodic_nodes",
    "similar_to_edges",
    "derives_from_edges",
    "supersedes_edges",
)


def _canonical(data: dict, key: str) -> list[str]:
    return sorted(json.dumps(item, sort_keys=True) for item in data[key])


@pytest.mark.parametrize("name", EXPORTS)
def test_reference_export_round_trips(reference_stores, tmp_path, name):
    data = json.loads((reference_stores / "exports" / f"{name}.export_to_json.json").read_text())
    with HierarchicalMemory("copy-agent", tmp_path / "fresh") as memory:
        result = memory.import_from_json(data)
        assert result["errors"] == 0 and result["skipped"] == 0
        assert result["semantic_nodes_imported"] == len(data["semantic_nodes"])
        again = memory.export_to_json()
        as_11 = memory.export_graph("1.1")
    assert again["agent_name"] == "copy-agent"
    for key in GRAPH_KEYS:
        assert _canonical(again, key) == _canonical(data, key), key
    assert as_11["format_version"] == "1.1"
    assert as_11["transitioned_to_edges"] == []
    assert as_11["statistics"]["transitioned_to_edge_count"] == 0


def test_format_11_round_trips_with_transitions(tmp_path):
    with HierarchicalMemory("writer", tmp_path / "a") as memory:
        for turn, value in enumerate((10, 20, 30), 1):
            memory.store_knowledge(
                f"The queue holds {value} jobs",
                "queue depth",
                temporal_metadata={"temporal_index": turn},
            )
        exported = memory.export_graph("1.1")
    assert len(exported["transitioned_to_edges"]) == 2
    with HierarchicalMemory("reader", tmp_path / "b") as memory:
        memory.import_graph(exported)
        back = memory.export_graph("1.1")
    for key in (*GRAPH_KEYS, "transitioned_to_edges"):
        assert _canonical(back, key) == _canonical(exported, key)


def test_merge_skips_existing_ids(reference_stores, tmp_path):
    data = json.loads((reference_stores / "exports/support-bot.export_to_json.json").read_text())
    with HierarchicalMemory("support-bot", tmp_path / "m") as memory:
        memory.import_from_json(data)
        result = memory.import_from_json(data, merge=True)
        stats = memory.get_statistics()
    nodes = len(data["semantic_nodes"]) + len(data["episodic_nodes"])
    edges = sum(len(data[k]) for k in GRAPH_KEYS[2:])
    assert result["skipped"] == nodes + edges
    assert result["semantic_nodes_imported"] == 0
    assert stats["semantic_nodes"] == len(data["semantic_nodes"])


def _file_digest(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


BAD_DOCUMENTS = {
    "not an object": [],
    "no nodes": {"format_version": "1.0"},
    "unknown version": {"format_version": "9", "semantic_nodes": []},
    "nodes not a list": {"semantic_nodes": {"a": 1}},
    "missing id": {"semantic_nodes": [{"content": "x"}]},
    "duplicate id": {"semantic_nodes": [{"memory_id": "a"}, {"memory_id": "a"}]},
    "wrong type": {"semantic_nodes": [{"memory_id": "a", "confidence": "high"}]},
    "confidence out of range": {"semantic_nodes": [{"memory_id": "a", "confidence": 3.0}]},
    "edge to missing node": {
        "semantic_nodes": [{"memory_id": "a"}],
        "similar_to_edges": [{"source_id": "a", "target_id": "ghost", "weight": 0.5}],
    },
    "derives from missing episode": {
        "semantic_nodes": [{"memory_id": "a"}],
        "derives_from_edges": [{"source_id": "a", "target_id": "nope"}],
    },
}


@pytest.mark.parametrize("case", sorted(BAD_DOCUMENTS))
def test_bad_import_writes_nothing(tmp_path, case):
    path = tmp_path / "store"
    with HierarchicalMemory("keeper", path) as memory:
        memory.store_knowledge("The cache holds 5 GB", "cache size")
        before_export = memory.export_to_json()
    before = _file_digest(path)
    with HierarchicalMemory("keeper", path) as memory:
        with pytest.raises(ImportDataError) as raised:
            memory.import_from_json(copy.deepcopy(BAD_DOCUMENTS[case]))
        assert "nothing was written" in str(raised.value)
        assert memory.read_only  # validation failed before the store was reopened
    assert _file_digest(path) == before
    with HierarchicalMemory("keeper", path, mode="read") as memory:
        after = memory.export_to_json()
    assert after["semantic_nodes"] == before_export["semantic_nodes"]


def test_problems_name_their_json_path():
    with pytest.raises(ImportDataError) as raised:
        validate_export(BAD_DOCUMENTS["edge to missing node"])
    assert "similar_to_edges[0].target_id" in str(raised.value)


def test_import_uses_callers_agent_name(reference_stores, tmp_path):
    data = json.loads((reference_stores / "exports/ops-agent.export_to_json.json").read_text())
    data["agent_name"] = "someone-else"
    with HierarchicalMemory("new-owner", tmp_path / "s") as memory:
        memory.import_from_json(data)
        assert memory.get_statistics()["semantic_nodes"] == len(data["semantic_nodes"])
    with HierarchicalMemory("someone-else", tmp_path / "s", mode="read") as memory:
        assert memory.get_statistics()["semantic_nodes"] == 0
