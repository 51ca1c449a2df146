"""Backups on disk (backups.py) on a small SQLite store made here: the folder and
its manifest written out field by field, listing, damaged backups, restore modes.

The expected values are written by hand from the documented layout, not read
back from memexplorer.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import shutil
import sqlite3
import stat
from datetime import UTC, datetime
from pathlib import Path

import pytest

from memexplorer import __version__
from memexplorer.operator.backup_records import (
    BACKUP_FORMAT,
    BackupError,
    BadBackupError,
    RestoreResult,
    TableRestore,
    backups_folder,
    list_backups,
    read_backup,
)
from memexplorer.operator.backups import restore_backup, write_backup
from memexplorer.operator.sqlite_rows import delete_rows, save_rows
from memexplorer.storage.exceptions import (
    InvalidInputError,
    StoreLockedError,
    StoreNotFoundError,
)


@pytest.fixture
def store(tmp_path: Path) -> Path:
    path = tmp_path / "notes.db"
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE notes (id TEXT PRIMARY KEY, body TEXT)")
        db.executemany("INSERT INTO notes VALUES (?, ?)", [("a", "one"), ("b", "two")])
    return path


def _notes(path: Path) -> list[tuple[str, str]]:
    with sqlite3.connect(path) as db:
        return db.execute("SELECT id, body FROM notes ORDER BY id").fetchall()


def _backup(home: Path, store: Path, **kwargs) -> object:
    with sqlite3.connect(store) as db:
        saved = save_rows(db, "notes", "id", ["a"])
    options = {
        "action": "clean", "kind": "experience", "engine": "sqlite",
        "agents": ["zed", "amy", "zed"], "selection": {"pattern": "a*"}, **kwargs,
    }  # fmt: skip
    return write_backup(home, store=store, tables=[saved], **options)


def test_the_backup_folder_and_manifest_as_documented(tmp_path, store):
    home = tmp_path / "home"
    before = datetime.now(UTC)
    record = _backup(home, store)
    folder = home / "backups"
    assert backups_folder(home) == folder and record.path.parent == folder
    assert re.fullmatch(r"\d{8}T\d{12}Z-clean-[0-9a-f]{8}", record.path.name)
    assert record.path.name.endswith(f"-clean-{record.id}")
    assert [p.name for p in folder.iterdir()] == [record.path.name]  # no staging left
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert stat.S_IMODE(record.path.stat().st_mode) == 0o700
    for name in ("manifest.json", "rows.json"):
        assert stat.S_IMODE((record.path / name).stat().st_mode) == 0o600
    manifest = json.loads((record.path / "manifest.json").read_text())
    created = datetime.fromisoformat(manifest.pop("created_at"))
    assert before <= created <= datetime.now(UTC)
    assert manifest == {
        "format": 1, "id": record.id, "action": "clean", "store": str(store),
        "kind": "experience", "engine": "sqlite", "agents": ["amy", "zed"],
        "selection": {"pattern": "a*"}, "counts": {"notes": 1}, "restore_mode": "insert",
        "memexplorer_version": __version__,
    }  # fmt: skip
    assert BACKUP_FORMAT == 1
    assert record.to_dict() == {
        "path": str(record.path), "id": record.id, "created_at": created.isoformat(),
        "action": "clean", "store": str(store), "kind": "experience", "engine": "sqlite",
        "agents": ["amy", "zed"], "counts": {"notes": 1}, "selection": {"pattern": "a*"},
        "restored": False, "restored_at": None, "whole_store": False,
    }  # fmt: skip
    rows = json.loads((record.path / "rows.json").read_text())
    assert [t["name"] for t in rows["tables"]] == ["notes"]
    assert [r["body"] for r in rows["tables"][0]["rows"]] == ["one"]


def test_a_relative_store_is_recorded_absolute(tmp_path, store, monkeypatch):
    monkeypatch.chdir(store.parent)
    record = _backup(tmp_path / "home", Path(store.name))
    assert record.store == store and record.store.is_absolute()


@pytest.mark.parametrize("action", ["", "Clean", "1clean", "clean_rows", "a" * 33, "-a"])
def test_bad_action_names_are_refused(tmp_path, store, action):
    with pytest.raises(InvalidInputError, match="Not a valid backup action name"):
        _backup(tmp_path / "home", store, action=action)
    assert not (tmp_path / "home").exists()


@pytest.mark.parametrize("action", ["a", "a" * 32, "console-write", "redact2"])
def test_good_action_names_are_taken(tmp_path, store, action):
    assert _backup(tmp_path / "home", store, action=action).action == action


def test_a_failed_write_leaves_no_backup(tmp_path, store):
    home = tmp_path / "home"
    home.mkdir()
    (home / "backups").write_text("a file where the folder should be")
    with pytest.raises(BackupError, match="Could not write the backup"):
        _backup(home, store)
    assert (home / "backups").read_text() == "a file where the folder should be"


def test_a_symlinked_backups_folder_is_refused(tmp_path, store):
    home = tmp_path / "home"
    home.mkdir()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (home / "backups").symlink_to(elsewhere)
    with pytest.raises(BackupError, match="symbolic link"):
        _backup(home, store)
    assert list(elsewhere.iterdir()) == []


def test_listing_is_oldest_first_and_skips_what_is_not_a_backup(tmp_path, store):
    home = tmp_path / "home"
    assert list_backups(home) == []
    first, second = _backup(home, store), _backup(home, store, action="redact")
    folder = home / "backups"
    # Names sorting before the real backups: one that is skipped must not end the list.
    shutil.copytree(first.path, folder / ".0-staging.tmp")  # a write that never finished
    (folder / "0-a-file").write_text("x")
    (folder / "0-linked").symlink_to(first.path)
    good = {"id": "x", "action": "a", "store": "/s", "kind": "k", "engine": "e",
            "created_at": "2026-01-01T00:00:00"}  # fmt: skip
    for name, manifest in [
        ("0-no-manifest", None),
        ("0-not-json", "{"),
        ("0-a-list", "[]"),
        ("0-no-engine", json.dumps({"format": 1, **{k: good[k] for k in good if k != "engine"}})),
        ("0-format-0", json.dumps({**good, "format": 0})),
        ("0-format-2", json.dumps({**good, "format": 2})),
    ]:
        (folder / name).mkdir()
        if manifest is not None:
            (folder / name / "manifest.json").write_text(manifest)
    records = list_backups(home)
    assert [r.path for r in records] == [first.path, second.path]
    assert [r.action for r in records] == ["clean", "redact"]


def test_damaged_backups_are_refused_by_name(tmp_path, store):
    with pytest.raises(BadBackupError, match="No backup folder at"):
        read_backup(tmp_path / "nowhere")
    record = _backup(tmp_path / "home", store)
    (record.path / "rows.json").write_text(json.dumps({"tables": [{"name": "notes"}]}))
    with pytest.raises(BadBackupError, match=r"rows.json is damaged"):
        read_backup(record.path)
    (record.path / "rows.json").write_text("not json")
    with pytest.raises(BadBackupError, match="Cannot read"):
        read_backup(record.path)
    (record.path / "manifest.json").write_text(json.dumps({"format": 7}))
    with pytest.raises(BadBackupError, match="not a memexplorer backup manifest"):
        read_backup(record.path)


def test_restore_inserts_then_counts_what_is_there(tmp_path, store):
    record = _backup(tmp_path / "home", store)
    with sqlite3.connect(store) as db:
        delete_rows(db, "notes", "id", ["a"])
    assert _notes(store) == [("b", "two")]
    result = restore_backup(record.path)
    assert _notes(store) == [("a", "one"), ("b", "two")]
    assert (result.restored, result.already_there, result.whole_store) == (1, 0, False)
    assert result.to_dict() == {
        "backup": str(record.path), "store": str(store), "restored": 1, "already_there": 0,
        "tables": {"notes": {"restored": 1, "already_there": 0, "missing_endpoint": 0,
                             "replaced": 0}},
    }  # fmt: skip
    marker = json.loads((record.path / "restored.json").read_text())
    assert marker["restored"] == 1 and marker["restored_at"]
    assert stat.S_IMODE((record.path / "restored.json").stat().st_mode) == 0o600
    [listed] = list_backups(tmp_path / "home")
    assert listed.restored and listed.restored_at == marker["restored_at"]
    again = restore_backup(record.path)  # the row is there now
    assert (again.restored, again.already_there) == (0, 1)
    assert not (record.path / ".restored.json.tmp").exists()


def test_restore_of_changed_rows_puts_the_saved_values_back(tmp_path, store):
    record = _backup(tmp_path / "home", store, action="redact", restore_mode="replace")
    with sqlite3.connect(store) as db:
        db.execute("UPDATE notes SET body = '[REDACTED]' WHERE id = 'a'")
    result = restore_backup(record.path)
    assert _notes(store) == [("a", "one"), ("b", "two")]
    assert result.tables == {"notes": TableRestore(restored=0, replaced=1)}
    assert result.restored == 1  # replaced rows count as restored


def test_restore_needs_its_store_and_waits_for_no_writer(tmp_path, store):
    record = _backup(tmp_path / "home", store)
    writer = sqlite3.connect(store, isolation_level=None)
    try:
        writer.execute("BEGIN IMMEDIATE")
        with pytest.raises(StoreLockedError, match="Another process is writing this store"):
            restore_backup(record.path)
    finally:
        writer.execute("ROLLBACK")
        writer.close()
    assert not (record.path / "restored.json").exists()
    os.remove(store)
    with pytest.raises(StoreNotFoundError, match="not there"):
        restore_backup(record.path)


def test_table_counts_start_at_zero_and_backups_take_keywords(tmp_path, store):
    assert vars(TableRestore()) == {
        "restored": 0, "already_there": 0, "missing_endpoint": 0, "replaced": 0,
    }  # fmt: skip
    with pytest.raises(TypeError):
        write_backup(tmp_path, "clean", store, "experience", "sqlite", [])  # type: ignore[misc]


def test_restore_results_add_up_their_tables(tmp_path):
    result = RestoreResult(
        tmp_path, tmp_path,
        {"a": TableRestore(2, 1, 0, 3), "b": TableRestore(restored=4, already_there=5)},
    )  # fmt: skip
    assert (result.restored, result.already_there, result.whole_store) == (9, 6, False)


def test_records_and_results_cannot_be_changed(tmp_path, store):
    record = _backup(tmp_path / "home", store)
    with pytest.raises(dataclasses.FrozenInstanceError):
        record.action = "other"  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        TableRestore().restored = 1  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        RestoreResult(tmp_path, store, {}).whole_store = True  # type: ignore[misc]
