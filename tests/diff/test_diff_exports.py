"""diff on two hand-written exports whose differences are known: every addition,
removal, change (by id and by concept) and chain step is spelled out here by hand."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memexplorer.engine.diff_report import diff_memory
from memexplorer.engine.exceptions import InvalidInputError


def _fact(memory_id: str, concept: str, content: str, confidence: float = 0.8) -> dict:
    return {
        "memory_id": memory_id,
        "concept": concept,
        "content": content,
        "confidence": confidence,
        "source_id": "",
        "tags": [],
        "metadata": {},
        "created_at": "2026-11-20T10:00:00",
        "entity_name": "",
    }


def _episode(memory_id: str, content: str) -> dict:
    return {
        "memory_id": memory_id,
        "content": content,
        "source_label": "chat",
        "tags": [],
        "metadata": {},
        "created_at": "2026-11-20T09:00:00",
    }


def _export(agent: str, semantic: list, episodic: list, **edges: list) -> dict:
    data = {
        "agent_name": agent,
        "exported_at": "1795600000",
        "format_version": "1.1",
        "semantic_nodes": semantic,
        "episodic_nodes": episodic,
    }
    for key in (
        "similar_to_edges",
        "derives_from_edges",
        "supersedes_edges",
        "transitioned_to_edges",
    ):
        data[key] = edges.get(key, [])
    return data


def _supersedes(newer: str, older: str) -> dict:
    return {"source_id": newer, "target_id": older, "reason": "newer value", "temporal_delta": ""}


BEFORE = _export(
    "ops-agent",
    [
        _fact("f-replicas-1", "checkout replicas", "checkout-api runs 3 replicas"),
        _fact("f-replicas-2", "checkout replicas", "checkout-api runs 5 replicas"),
        _fact("f-owner", "service owner", "checkout-api is owned by Payments"),
        _fact("f-port", "service port", "checkout-api listens on 8080"),
        _fact("f-old-region", "cluster region", "the cluster runs in eu-west-1"),
        _fact("f-bill", "aws bill", "the AWS bill was 900 USD", 0.6),
    ],
    [_episode("e-1", "talked about replicas"), _episode("e-2", "talked about ports")],
    supersedes_edges=[_supersedes("f-replicas-2", "f-replicas-1")],
    similar_to_edges=[
        {"source_id": "f-owner", "target_id": "f-port", "weight": 0.4, "metadata": {}}
    ],
    derives_from_edges=[
        {"source_id": "f-port", "target_id": "e-2", "extraction_method": "llm", "confidence": 0.9}
    ],
)

AFTER = _export(
    "ops-agent",
    [
        _fact("f-replicas-1", "checkout replicas", "checkout-api runs 3 replicas"),
        _fact("f-replicas-2", "checkout replicas", "checkout-api runs 5 replicas"),
        _fact("f-replicas-3", "checkout replicas", "checkout-api runs 7 replicas"),  # a step
        _fact("f-owner", "service owner", "checkout-api is owned by Platform"),  # changed
        _fact("f-new-region", "Cluster Region", "the cluster runs in us-east-2"),  # by concept
        _fact("f-bill", "aws bill", "the AWS bill was 900 USD", 0.9),  # confidence
        _fact("f-dns", "dns hosting", "DNS is hosted on Route 53"),  # added
    ],
    [_episode("e-1", "talked about replicas"), _episode("e-3", "talked about DNS")],
    supersedes_edges=[
        _supersedes("f-replicas-2", "f-replicas-1"),
        _supersedes("f-replicas-3", "f-replicas-2"),
    ],
    similar_to_edges=[
        {"source_id": "f-owner", "target_id": "f-bill", "weight": 0.5, "metadata": {}}
    ],
    derives_from_edges=[
        {"source_id": "f-dns", "target_id": "e-3", "extraction_method": "llm", "confidence": 0.9}
    ],
    transitioned_to_edges=[
        {
            "source_id": "f-replicas-3",
            "target_id": "f-replicas-2",
            "from_value": "7",
            "to_value": "5",
            "turn": 3,
            "transition_type": "update",
        }
    ],
)


def _write(folder: Path, name: str, data: dict) -> Path:
    path = folder / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def _ids(records: list[dict]) -> list[str]:
    return [r["memory_id"] for r in records]


def _ends(records: list[dict]) -> list[tuple[str, str]]:
    return [(r["source_id"], r["target_id"]) for r in records]


def test_every_known_difference(tmp_path: Path) -> None:
    report = diff_memory(_write(tmp_path, "a.json", BEFORE), _write(tmp_path, "b.json", AFTER))
    facts = report.diff.table("SemanticMemory")
    assert _ids(facts.added) == ["f-dns", "f-replicas-3"]
    assert _ids(facts.removed) == ["f-port"]
    changes = {c.key: c for c in facts.changed}
    assert set(changes) == {"f-owner", "f-bill", "f-new-region"}
    assert changes["f-owner"].fields == {
        "content": ("checkout-api is owned by Payments", "checkout-api is owned by Platform")
    }
    assert changes["f-bill"].fields == {"confidence": (0.6, 0.9)}
    region = changes["f-new-region"]
    assert (region.old_key, region.matched_by) == ("f-old-region", "concept")
    assert region.fields == {
        "concept": ("cluster region", "Cluster Region"),
        "content": ("the cluster runs in eu-west-1", "the cluster runs in us-east-2"),
    }
    episodes = report.diff.table("EpisodicMemory")
    assert (_ids(episodes.added), _ids(episodes.removed), episodes.changed) == (
        ["e-3"],
        ["e-2"],
        [],
    )
    assert _ends(report.diff.table("SUPERSEDES").added) == [("f-replicas-3", "f-replicas-2")]
    assert report.diff.table("SUPERSEDES").removed == []
    similar = report.diff.table("SIMILAR_TO")
    assert (_ends(similar.added), _ends(similar.removed)) == (
        [("f-owner", "f-bill")],
        [("f-owner", "f-port")],
    )
    derives = report.diff.table("DERIVES_FROM")
    assert (_ends(derives.added), _ends(derives.removed)) == (
        [("f-dns", "e-3")],
        [("f-port", "e-2")],
    )
    assert _ends(report.diff.table("TRANSITIONED_TO").added) == [("f-replicas-3", "f-replicas-2")]
    [chain] = report.diff.chains
    assert chain.concept == "checkout replicas"
    assert [h["memory_id"] for h in chain.before] == ["f-replicas-2"]
    assert [h["memory_id"] for h in chain.after] == ["f-replicas-3"]
    assert (chain.new_steps, chain.direction) == (1, "on")


def test_reversed_sides_swap_added_and_removed(tmp_path: Path) -> None:
    report = diff_memory(_write(tmp_path, "b.json", AFTER), _write(tmp_path, "a.json", BEFORE))
    facts = report.diff.table("SemanticMemory")
    assert _ids(facts.added) == ["f-port"]
    assert _ids(facts.removed) == ["f-dns", "f-replicas-3"]
    [chain] = report.diff.chains  # the step undone: the chain moved back
    assert [h["memory_id"] for h in chain.after] == ["f-replicas-2"]
    assert (chain.direction, chain.new_steps) == ("back", 0)


def test_a_chain_that_grows_from_a_lone_fact(tmp_path: Path) -> None:
    before = _export("a", [_fact("x1", "disk", "disk is 10 GB")], [])
    after = _export(
        "a",
        [_fact("x1", "disk", "disk is 10 GB"), _fact("x2", "disk", "20 GB")],
        [],
        supersedes_edges=[_supersedes("x2", "x1")],
    )
    report = diff_memory(_write(tmp_path, "a.json", before), _write(tmp_path, "b.json", after))
    [chain] = report.diff.chains
    assert ([h["memory_id"] for h in chain.before], [h["memory_id"] for h in chain.after]) == (
        ["x1"],
        ["x2"],
    )


def test_two_agents_are_refused_unless_asked(tmp_path: Path) -> None:
    a = _write(tmp_path, "a.json", BEFORE)
    b = _write(tmp_path, "b.json", {**AFTER, "agent_name": "research-agent"})
    with pytest.raises(InvalidInputError, match=r"two agents' memories.*'ops-agent'.*'research"):
        diff_memory(a, b)
    assert not diff_memory(a, b, other_agent=True).same_agent


def test_identical_exports_have_no_differences(tmp_path: Path) -> None:
    report = diff_memory(_write(tmp_path, "a.json", BEFORE), _write(tmp_path, "b.json", BEFORE))
    assert report.diff.empty
