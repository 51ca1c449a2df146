"""Merging planted duplicates in a graph store: the edges and values written (worked
out by hand from the writers' code), the backup, undo to the very rows, and refusals."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memexplorer.operator.backup_records import list_backups
from memexplorer.operator.backups import restore_backup
from memexplorer.operator.merge import merge_facts, preview_merge
from memexplorer.storage.exceptions import (
    InvalidInputError,
    StoreChangedError,
    WritesDisabledError,
)
from memexplorer.storage.graph_open import open_graph_store

from .planted import AGENT, build_graph_store, dump


def _edge(source: str, target: str, **props: object) -> str:
    row = {"_from": source, "_from_table": "SemanticMemory", "_to": target,
           "_to_table": "SemanticMemory", **props}  # fmt: skip
    return json.dumps(row, sort_keys=True)


def _cypher(store: Path, statement: str) -> None:
    with open_graph_store(store, read_only=False) as graph:
        graph.execute(statement)


@pytest.fixture
def library_store(tmp_path: Path) -> Path:
    return build_graph_store(tmp_path / "kuzu_db")


def test_library_store_gets_one_supersedes_edge_per_merged_fact(library_store, tmp_path):
    before = dump(library_store)
    plan = preview_merge(library_store, AGENT, "a3", ["a2", "a1"])
    assert plan.writer == "amplihack-memory-lib"
    assert dump(library_store) == before  # the preview writes nothing
    result = merge_facts(plan, home=tmp_path / "home")
    after = dump(library_store)
    # The library's _detect_supersedes writes SUPERSEDES {reason, temporal_delta} only:
    # no TRANSITIONED_TO table, no fact changed. Both pairs score 0.9 (planted.PAIRS).
    reason = "Merged duplicate (similarity 0.90)"
    assert after["SUPERSEDES"] == sorted([
        _edge("a3", "a2", reason=reason, temporal_delta=""),
        _edge("a3", "a1", reason=reason, temporal_delta=""),
    ])  # fmt: skip
    assert {k: v for k, v in after.items() if k != "SUPERSEDES"} == {
        k: v for k, v in before.items() if k != "SUPERSEDES"
    }
    assert before["SUPERSEDES"] == []
    assert [b.action for b in list_backups(tmp_path / "home")] == ["merge"]
    assert result.backup.counts == {"SemanticMemory": 3}


def test_undo_restores_every_row_exactly(library_store, tmp_path):
    before = dump(library_store)
    result = merge_facts(preview_merge(library_store, AGENT, "a1", ["a3"]), home=tmp_path)
    assert dump(library_store) != before
    restored = restore_backup(result.backup.path)
    assert dump(library_store) == before
    assert restored.tables["SUPERSEDES"].removed == 1
    with pytest.raises(InvalidInputError, match="undone already"):
        restore_backup(result.backup.path)
    assert dump(library_store) == before


def test_undo_refuses_when_a_merged_fact_changed_since(library_store, tmp_path):
    result = merge_facts(preview_merge(library_store, AGENT, "a3", ["a2"]), home=tmp_path)
    _cypher(library_store, "MATCH (m:SemanticMemory {memory_id: 'a2'}) SET m.confidence = 0.1")
    changed = dump(library_store)
    with pytest.raises(StoreChangedError, match=r"a2's confidence is 0\.1"):
        restore_backup(result.backup.path)
    assert dump(library_store) == changed


def test_undo_refuses_when_the_added_edge_is_gone(library_store, tmp_path):
    result = merge_facts(preview_merge(library_store, AGENT, "a3", ["a2", "a1"]), home=tmp_path)
    _cypher(library_store, "MATCH (:SemanticMemory {memory_id: 'a3'})-[r:SUPERSEDES]->"
            "(:SemanticMemory {memory_id: 'a1'}) DELETE r")  # fmt: skip
    changed = dump(library_store)
    with pytest.raises(StoreChangedError, match="from a3 to a1 is not there"):
        restore_backup(result.backup.path)
    assert dump(library_store) == changed  # the a3 -> a2 edge was not taken out either


def test_a_change_between_preview_and_merge_is_refused(library_store, tmp_path):
    plan = preview_merge(library_store, AGENT, "a3", ["a2"])
    _cypher(library_store, "MATCH (m:SemanticMemory {memory_id: 'a2'}) SET m.content = 'x'")
    changed = dump(library_store)
    with pytest.raises(StoreChangedError, match="changed since the preview"):
        merge_facts(plan, home=tmp_path / "home")
    assert dump(library_store) == changed
    assert list_backups(tmp_path / "home") == []


def test_writes_disabled_refuses_before_anything(library_store, tmp_path, monkeypatch):
    plan = preview_merge(library_store, AGENT, "a3", ["a2"])
    before = dump(library_store)
    monkeypatch.setenv("MEMEXPLORER_READ_ONLY", "1")
    with pytest.raises(WritesDisabledError):
        merge_facts(plan, home=tmp_path / "home")
    assert dump(library_store) == before
    assert list_backups(tmp_path / "home") == []


@pytest.mark.parametrize(
    ("keep", "others", "message"),
    [
        ("a3", [], "at least one"),
        ("a3", ["a3"], "named twice"),
        ("a3", ["a2", "a2"], "named twice"),
        ("a3", ["zz"], "No fact zz of agent ops"),
        ("a3", ["c1"], "different concepts"),
    ],
)
def test_bad_merges_are_refused(library_store, keep, others, message):
    with pytest.raises(InvalidInputError, match=message):
        preview_merge(library_store, AGENT, keep, others)


def test_a_superseded_fact_is_not_merged_again(library_store, tmp_path):
    merge_facts(preview_merge(library_store, AGENT, "a3", ["a2"]), home=tmp_path)
    with pytest.raises(InvalidInputError, match="a2 is superseded already"):
        preview_merge(library_store, AGENT, "a1", ["a2"])


def test_seed_003_store_also_transitions_and_lowers_confidence(tmp_path):
    store = build_graph_store(tmp_path / "kuzu_db", seed_003=True)
    before = dump(store)
    plan = preview_merge(store, AGENT, "b2", ["b1"])
    assert plan.writer == "memexplorer"
    result = merge_facts(plan, home=tmp_path / "home")
    after = dump(store)
    # _write_supersession: SUPERSEDES and TRANSITIONED_TO (same numbers in both facts, so
    # the values are the contents; turn 0, no temporal index), b1's confidence 0.7 halved
    # and the old value kept in its metadata.
    content = "Primary database runs PostgreSQL 15"
    assert after["SUPERSEDES"] == [
        _edge("b2", "b1", reason="Merged duplicate (similarity 0.80)", temporal_delta="")
    ]
    assert after["TRANSITIONED_TO"] == [
        _edge("b2", "b1", from_value=content, to_value=content, turn=0, transition_type="update")
    ]
    b1 = next(json.loads(r) for r in after["SemanticMemory"] if '"memory_id": "b1"' in r)
    assert (b1["confidence"], json.loads(b1["metadata"])) == (
        0.35,
        {"confidence_before_supersede": 0.7},
    )
    others = [r for r in after["SemanticMemory"] if '"memory_id": "b1"' not in r]
    assert others == [r for r in before["SemanticMemory"] if '"memory_id": "b1"' not in r]
    restore_backup(result.backup.path)
    assert dump(store) == before
