"""A correction goes through the write gate: refused while another writer holds the
store, refused where writing would upgrade the store, refused when the store
changed since the preview; a whole-store backup first; undo refuses to throw
away what the agent wrote since."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from gate_helpers import gate_held_elsewhere

from memexplorer.memory.hierarchical_memory import HierarchicalMemory
from memexplorer.operator.backup_records import list_backups
from memexplorer.operator.correct_plan import CorrectionRequest
from memexplorer.operator.correct_read import correction_request, plan_correction
from memexplorer.operator.correct_undo import undo_correction
from memexplorer.operator.correct_write import CORRECTION_FILE, correct_fact
from memexplorer.storage.exceptions import (
    StoreBusyError,
    StoreChangedError,
    StoreUpgradeRequired,
    WritesDisabledError,
)

from .store_dump import dump_store

OPS = "home/.amplihack/hierarchical_memory/ops-agent"
#: checkout-api runs 7 replicas in production (temporal_index 3 of 4).
SEVEN = "9972a55b-1911-4f43-95c3-0e10251a1335"


def _wish(content: str = "checkout-api runs 8 replicas in production") -> CorrectionRequest:
    return correction_request("ops-agent", SEVEN, content)


def test_refused_while_another_writer_holds_the_store(reference_stores: Path, tmp_path: Path):
    store = reference_stores / OPS / "kuzu_db"
    wish = _wish()
    plan = plan_correction(store, wish)
    before = dump_store(store)
    with gate_held_elsewhere(store, "clean") as pid, pytest.raises(StoreBusyError) as caught:
        correct_fact(plan, wish, home=tmp_path / "home")
    assert str(pid) in caught.value.describe()
    assert dump_store(store) == before
    assert list_backups(tmp_path / "home") == []


def test_refused_when_writing_would_upgrade_the_store(
    ladybug_stores: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = tmp_path / "ladybug_db"
    shutil.copy(ladybug_stores / OPS / "ladybug_db", store)
    wish = _wish()
    plan = plan_correction(store, wish)
    # A newer ladybug installed: writing would rewrite the store in its version.
    monkeypatch.setattr(
        "memexplorer.storage.upgrade_check.installed_ladybug_storage_version", lambda: 99
    )
    before = store.read_bytes()
    with pytest.raises(StoreUpgradeRequired):
        correct_fact(plan, wish, home=tmp_path / "home")
    assert store.read_bytes() == before
    assert list_backups(tmp_path / "home") == []


def test_refused_in_a_read_only_session(
    reference_stores: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = reference_stores / OPS / "kuzu_db"
    wish = _wish()
    plan = plan_correction(store, wish)
    monkeypatch.setenv("MEMEXPLORER_READ_ONLY", "1")
    with pytest.raises(WritesDisabledError):
        correct_fact(plan, wish, home=tmp_path / "home")


def test_a_backup_of_the_whole_store_comes_first(reference_stores: Path, tmp_path: Path):
    store = reference_stores / OPS / "kuzu_db"
    original = store.read_bytes()
    wish = _wish()
    result = correct_fact(plan_correction(store, wish), wish, home=tmp_path / "home")
    [record] = list_backups(tmp_path / "home")
    assert (record.action, record.path, record.restore_mode) == ("correct", result.backup.path,
                                                                 "file")  # fmt: skip
    assert (record.path / "store.kuzu").read_bytes() == original
    kept = json.loads((record.path / CORRECTION_FILE).read_text())
    assert kept["plan"]["node"]["memory_id"] == wish.node_id
    assert (record.path / CORRECTION_FILE).stat().st_mode & 0o777 == 0o600


def test_refused_when_the_store_changed_since_the_preview(
    reference_stores: Path, tmp_path: Path
) -> None:
    store = reference_stores / OPS / "kuzu_db"
    wish = _wish()
    plan = plan_correction(store, wish)
    with HierarchicalMemory("ops-agent", store) as agent:  # the agent learns meanwhile
        agent.store_knowledge("checkout-api runs 9 replicas in production",
                              "checkout-api replicas", 0.9,
                              temporal_metadata={"temporal_index": 5})  # fmt: skip
    before = dump_store(store)
    with pytest.raises(StoreChangedError, match="since the correction was previewed"):
        correct_fact(plan, wish, home=tmp_path / "home")
    assert dump_store(store) == before


def test_undo_refuses_when_the_agent_wrote_since(reference_stores: Path, tmp_path: Path):
    store = reference_stores / OPS / "kuzu_db"
    wish = _wish()
    result = correct_fact(plan_correction(store, wish), wish, home=tmp_path / "home")
    with HierarchicalMemory("ops-agent", store) as agent:  # similar: an edge to the correction
        agent.store_knowledge("checkout-api runs 8 replicas in production today",
                              "checkout-api replicas", 0.9)  # fmt: skip
    after = dump_store(store)
    with pytest.raises(StoreChangedError, match="edges to or from the corrected fact"):
        undo_correction(result.backup.path)
    assert dump_store(store) == after


def test_undo_removes_exactly_what_was_added(reference_stores: Path, tmp_path: Path):
    store = reference_stores / OPS / "kuzu_db"
    before = dump_store(store)
    wish = _wish()
    result = correct_fact(plan_correction(store, wish), wish, home=tmp_path / "home")
    assert dump_store(store) != before
    undone = undo_correction(result.backup.path)
    assert (undone.node_id, undone.edges_removed) == (wish.node_id, 8)
    nodes, edges = dump_store(store)
    assert nodes == before[0]
    assert sorted(edges) == sorted(before[1])
    with pytest.raises(StoreChangedError, match="undone already"):
        undo_correction(result.backup.path)


def test_undo_on_amplihack_rs_sqlite(rust_sqlite_home: Path, tmp_path: Path) -> None:
    store = rust_sqlite_home / "home/.amplihack/hierarchical_memory/ops-agent.db"
    before = dump_store(store)
    wish = correction_request("ops-agent", "ops-rep-2", "The replica count of the database is 9.")
    result = correct_fact(plan_correction(store, wish), wish, home=tmp_path / "home")
    assert len(dump_store(store)[0]) == len(before[0]) + 1
    undo_correction(result.backup.path)
    nodes, edges = dump_store(store)
    assert nodes == before[0]
    assert sorted(edges) == sorted(before[1])
