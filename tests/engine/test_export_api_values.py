"""export_to_json() parses each repeated tags or metadata text once, yet every record
gets lists and dicts of its own (as the reference's json.loads per row gives), and
the records are the ones the file put in."""

from __future__ import annotations

import json

from memexplorer.memory.hierarchical_memory import HierarchicalMemory
from memexplorer.operator.transfer import import_agent_store

AGENT = "values-agent"


def _export() -> dict:
    nested = {"source": {"kind": "chat", "turns": [1, 2]}}
    return {
        "agent_name": AGENT,
        "format_version": "1.0",
        "semantic_nodes": [
            {
                "memory_id": f"f-{i}",
                "concept": "c",
                "content": f"fact {i}",
                "confidence": 0.5,
                "source_id": "e-0",
                "tags": ["same", "tags"],
                "metadata": nested if i % 2 else {"category": "semantic"},
                "created_at": f"2026-01-01T00:00:0{i}",
                "entity_name": "",
            }
            for i in range(6)
        ],
        "episodic_nodes": [
            {
                "memory_id": "e-0",
                "content": "episode",
                "source_label": "s",
                "tags": [],
                "metadata": {},
                "created_at": "2026-01-01T00:00:00",
            }
        ],
        "similar_to_edges": [
            {
                "source_id": f"f-{i}",
                "target_id": f"f-{i + 1}",
                "weight": 0.5,
                "metadata": {"why": "same"},
            }
            for i in range(3)
        ],
        "derives_from_edges": [],
        "supersedes_edges": [],
    }


def test_every_record_has_lists_and_dicts_of_its_own(tmp_path):
    source = tmp_path / "in.json"
    data = _export()
    source.write_text(json.dumps(data))
    store = tmp_path / "store"
    import_agent_store(AGENT, source, storage_path=store)
    with HierarchicalMemory(AGENT, store, mode="read") as memory:
        out = memory.export_to_json()
    for key in ("semantic_nodes", "episodic_nodes", "similar_to_edges", "derives_from_edges"):
        assert out[key] == data[key], key
    facts, edges = out["semantic_nodes"], out["similar_to_edges"]
    facts[1]["tags"].append("changed")  # fact 0 parsed the text; 1 to 5 found it known
    facts[2]["metadata"]["category"] = "changed"
    facts[1]["metadata"]["source"]["turns"].append(3)
    edges[1]["metadata"]["why"] = "changed"
    assert [fact["tags"] for fact in facts if fact is not facts[1]] == [["same", "tags"]] * 5
    assert [facts[i]["metadata"] for i in (0, 4)] == [{"category": "semantic"}] * 2
    assert [facts[i]["metadata"] for i in (3, 5)] == [
        {"source": {"kind": "chat", "turns": [1, 2]}}
    ] * 2
    assert [edges[i]["metadata"] for i in (0, 2)] == [{"why": "same"}] * 2
