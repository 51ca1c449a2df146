"""Migrate's new store passes the write gate; with MEMEXPLORER_READ_ONLY=1 every
gated write (clean, restore, migrate, console write, writing mode) is refused and
no byte of any store changes, nor does a lock file appear."""

from __future__ import annotations

from pathlib import Path

import pytest
from gate_helpers import gate_held_elsewhere, run_cli
from store_helpers import checksums

from memexplorer.memory.inspection import summarize_store
from memexplorer.operator.backups import restore_backup
from memexplorer.operator.browse import open_browser
from memexplorer.operator.browsers import BrowserPool
from memexplorer.operator.clean import clean_store, clean_target
from memexplorer.operator.clean_selection import Selection
from memexplorer.operator.console import run_console_query
from memexplorer.operator.write_gate import gate_lock_path
from memexplorer.storage.exceptions import WritesDisabledError

AGENT = "home/.amplihack/hierarchical_memory/ops-agent"
KUZU = f"{AGENT}/kuzu_db"
SQLITE = "home/.amplihack/memory/ops-agent/experiences.db"


def test_migrate_to_a_target_another_writer_holds_is_refused(reference_stores, tmp_path):
    source = reference_stores / AGENT
    target = tmp_path / "new" / "kuzu_db"
    target.parent.mkdir()
    with gate_held_elsewhere(target, "migrate") as pid:
        result = run_cli("migrate", str(source), str(target), "--engine", "kuzu")
        assert result.returncode == 3, result.stderr
        assert f"PID {pid}" in result.stderr and "migrate" in result.stderr
        assert sorted(p.name for p in target.parent.iterdir()) == ["kuzu_db.memexplorer-lock"]
    result = run_cli("migrate", str(source), str(target), "--engine", "kuzu")
    assert result.returncode == 0, result.stderr
    assert summarize_store(target).agents["ops-agent"]["SemanticMemory"] == 84
    assert sorted(p.name for p in target.parent.iterdir()) == ["kuzu_db"]


@pytest.fixture
def backups(reference_stores: Path, tmp_path: Path) -> dict[str, Path]:
    """A row backup of each store (taken before writes are disabled)."""
    out = {}
    for name, selection in ((KUZU, Selection(table="EpisodicMemory")),
                            (SQLITE, Selection(pattern="failure"))):  # fmt: skip
        store = reference_stores / name
        result = clean_store(clean_target(store), selection, home=tmp_path / "home")
        assert result.backup is not None
        out[name] = result.backup.path
    return out


def _disabled(result) -> None:
    assert result.returncode == 1, result.stderr
    assert "Writes are disabled" in result.stderr and "MEMEXPLORER_READ_ONLY=1" in result.stderr
    assert "Traceback" not in result.stderr


def test_read_only_refuses_every_cli_write_and_changes_no_byte(reference_stores, backups, tmp_path):
    sums = checksums(reference_stores)
    for name in (KUZU, SQLITE):
        store = reference_stores / name
        clean = ["clean", "*", "--store", str(store), "--home", str(tmp_path / "home")]
        _disabled(run_cli(*clean, "--no-dry-run", "--yes", read_only=True))
        assert run_cli(*clean, read_only=True).returncode == 0  # a preview only reads
        _disabled(run_cli("restore", str(backups[name]), "--yes", read_only=True))
    target = tmp_path / "migrated" / "kuzu_db"
    migrate = ["migrate", str(reference_stores / AGENT), str(target), "--engine", "kuzu"]
    _disabled(run_cli(*migrate, read_only=True))
    assert not target.exists()
    assert checksums(reference_stores) == sums


def test_read_only_refuses_console_writes_writing_mode_and_restore_in_process(
    reference_stores, backups, monkeypatch
):
    sums = checksums(reference_stores)
    monkeypatch.setenv("MEMEXPLORER_READ_ONLY", "1")
    for name, statement in ((KUZU, "MATCH (n:SemanticMemory) DETACH DELETE n"),
                            (SQLITE, "DELETE FROM experiences")):  # fmt: skip
        store = reference_stores / name
        with pytest.raises(WritesDisabledError):
            open_browser(store, writable=True)
        browser = open_browser(store)
        try:
            with pytest.raises(WritesDisabledError):
                run_console_query(browser, statement, allow_write=True)
        finally:
            browser.close()
        pool = BrowserPool()
        with pytest.raises(WritesDisabledError):
            pool.set_writing(store, True)
        assert not pool.writing(store)
        pool.shutdown()
        with pytest.raises(WritesDisabledError):
            restore_backup(backups[name])
        assert not gate_lock_path(store).exists()
    assert checksums(reference_stores) == sums
