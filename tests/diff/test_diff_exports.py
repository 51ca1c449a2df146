"""diff on two hand-written exports whose differences are known: every addition,
removal, change (by id and by concept) and chain step is spelled out here by hand."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from diff_exports import AFTER, BEFORE, export, fact, supersedes

from memexplorer.operator.diff_report import diff_memory
from memexplorer.storage.exceptions import InvalidInputError


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


def test_a_chain_that_grows_from_a_lonefact(tmp_path: Path) -> None:
    before = export("a", [fact("x1", "disk", "disk is 10 GB")], [])
    after = export(
        "a",
        [fact("x1", "disk", "disk is 10 GB"), fact("x2", "disk", "20 GB")],
        [],
        supersedes_edges=[supersedes("x2", "x1")],
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


def test_concept_pairing_only_when_unambiguous(tmp_path: Path) -> None:
    """Two facts of a concept gone and one new: which one changed cannot be told, so
    none is paired; one gone and one new of another concept: not paired either."""
    before = export("a", [fact("old-1", "disk", "10 GB"), fact("old-2", "disk", "20 GB"),
                          fact("old-3", "cpu", "4 cores")], [])  # fmt: skip
    after = export("a", [fact("new-1", "disk", "30 GB"), fact("new-2", "memory", "8 GB")], [])
    report = diff_memory(_write(tmp_path, "a.json", before), _write(tmp_path, "b.json", after))
    facts = report.diff.table("SemanticMemory")
    assert facts.changed == []
    assert [n["memory_id"] for n in facts.removed] == ["old-1", "old-2", "old-3"]
    assert [n["memory_id"] for n in facts.added] == ["new-1", "new-2"]


def test_an_edge_whose_weight_changed(tmp_path: Path) -> None:
    edge = {"source_id": "x1", "target_id": "x2", "weight": 0.4, "metadata": {}}
    nodes = [fact("x1", "a", "one"), fact("x2", "b", "two")]
    before = export("a", nodes, [], similar_to_edges=[edge])
    after = export("a", nodes, [], similar_to_edges=[{**edge, "weight": 0.7}])
    report = diff_memory(_write(tmp_path, "a.json", before), _write(tmp_path, "b.json", after))
    [change] = report.diff.table("SIMILAR_TO").changed
    assert (change.key, change.matched_by, change.fields) == ("x1->x2", "ends",
                                                              {"weight": (0.4, 0.7)})  # fmt: skip
