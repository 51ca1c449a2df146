"""Two memexplorer writers on one store, in separate processes: the second is
refused at once (exit 3, naming the first one's PID) and nothing is lost; a writer
killed while it holds the gate leaves the store writable."""

from __future__ import annotations

import json
import signal
from pathlib import Path

import pytest
from clean.dump import dump_store
from gate_helpers import gate_held_elsewhere, run_cli, start_script
from store_helpers import checksums

from memexplorer.operator.browse import open_browser
from memexplorer.operator.clean import clean_store, clean_target
from memexplorer.operator.clean_selection import Selection
from memexplorer.operator.console import run_console_query
from memexplorer.operator.write_gate import gate_lock_path
from memexplorer.storage.exceptions import StoreBusyError

from .writers import CONSOLE_WRITE, PAUSED_CLEAN, WRITING_MODE

KUZU = "home/.amplihack/hierarchical_memory/ops-agent/kuzu_db"
SQLITE = "home/.amplihack/memory/ops-agent/experiences.db"


def _refused(result, pid: int) -> None:
    assert result.returncode == 3, result.stderr
    assert "Store is busy" in result.stderr and f"PID {pid}" in result.stderr
    assert "Traceback" not in result.stderr


def _rows(store: Path) -> dict[str, int]:
    return {table: len(dump["rows"]) for table, dump in dump_store(store).items()}


def _clean_cli(store: Path, home: Path, table: str) -> list[str]:
    return ["clean", "*", "--store", str(store), "--home", str(home), "--table", table,
            "--no-dry-run", "--yes", "--json"]  # fmt: skip


def _finish(process, expected_code: int = 0) -> str:
    out, err = process.communicate("")
    assert process.returncode == expected_code, err
    return out


def test_clean_while_a_clean_writes_is_refused_and_both_deletions_stand(reference_stores, tmp_path):
    store = reference_stores / KUZU
    before = _rows(store)
    first = start_script(PAUSED_CLEAN, str(store), str(tmp_path / "a"), "EpisodicMemory")
    try:
        second = run_cli(*_clean_cli(store, tmp_path / "b", "SemanticMemory"))
        _refused(second, first.pid)
        assert "clean" in second.stderr
        assert not (tmp_path / "b").exists()  # refused before any backup
    finally:
        out = _finish(first)
    assert "deleted 22" in out
    assert _rows(store)["EpisodicMemory"] == 0  # the first clean's work is not undone
    assert _rows(store)["SemanticMemory"] == before["SemanticMemory"]
    again = run_cli(*_clean_cli(store, tmp_path / "b", "SemanticMemory"))
    assert again.returncode == 0, again.stderr
    assert _rows(store)["SemanticMemory"] == 0
    assert not gate_lock_path(store).exists()


def test_restore_while_a_clean_writes_is_refused_then_restores(reference_stores, tmp_path):
    store = reference_stores / SQLITE
    earlier = clean_store(clean_target(store), Selection(pattern="failure"), home=tmp_path)
    assert earlier.backup is not None and earlier.preview.rows
    after_earlier = _rows(store)
    first = start_script(PAUSED_CLEAN, str(store), str(tmp_path), "experiences")
    try:
        restore = run_cli("restore", str(earlier.backup.path), "--yes")
        _refused(restore, first.pid)
        assert not (earlier.backup.path / "restored.json").exists()
    finally:
        _finish(first)
    assert _rows(store)["experiences"] == 0
    assert after_earlier["experiences"] > 0
    restore = run_cli("restore", str(earlier.backup.path), "--yes", "--json")
    assert restore.returncode == 0, restore.stderr
    assert json.loads(restore.stdout)["restored"] == earlier.preview.rows


def test_clean_while_a_restore_holds_the_store_is_refused(reference_stores, tmp_path):
    store = reference_stores / SQLITE
    sums = checksums(store)
    with gate_held_elsewhere(store, "restore") as pid:
        result = run_cli(*_clean_cli(store, tmp_path, "experiences"))
        _refused(result, pid)
        assert "restore" in result.stderr
    assert checksums(store) == sums


def test_clean_while_a_console_write_runs_is_refused(reference_stores, tmp_path):
    store = reference_stores / KUZU
    statement = "MATCH (n:SemanticMemory) WITH n LIMIT 1 SET n.content = 'console was here'"
    writer = start_script(CONSOLE_WRITE, str(store), str(tmp_path), statement)
    try:
        result = run_cli(*_clean_cli(store, tmp_path / "clean", "SemanticMemory"))
        _refused(result, writer.pid)
        assert "console write" in result.stderr
    finally:
        _finish(writer)
    rows = dump_store(store)["SemanticMemory"]["rows"]
    assert sum("console was here" in str(row) for row in rows) == 1
    assert _rows(store)["SemanticMemory"] == 84


def test_console_write_while_a_clean_writes_is_refused_and_does_not_run(reference_stores,
                                                                        tmp_path):  # fmt: skip
    store = reference_stores / SQLITE
    before = _rows(store)
    browser = open_browser(store, writable=True)  # as the app's console has it open
    first = start_script(PAUSED_CLEAN, str(store), str(tmp_path), "experiences")
    try:
        with pytest.raises(StoreBusyError) as caught:
            run_console_query(browser, "DELETE FROM experiences", allow_write=True)
        assert caught.value.pid == first.pid
    finally:
        browser.close()
        _finish(first)
    assert before["experiences"] > 0 and _rows(store)["experiences"] == 0


def test_clean_and_restore_while_the_app_is_writing_are_refused(reference_stores, tmp_path):
    store = reference_stores / SQLITE
    backup = clean_store(clean_target(store), Selection(pattern="failure"), home=tmp_path).backup
    assert backup is not None
    sums = checksums(store)
    app = start_script(WRITING_MODE, str(store))
    try:
        clean = run_cli(*_clean_cli(store, tmp_path, "experiences"))
        _refused(clean, app.pid)
        assert "writing mode" in clean.stderr
        _refused(run_cli("restore", str(backup.path), "--yes"), app.pid)
        assert checksums(store) == sums
    finally:
        _finish(app)
    assert not gate_lock_path(store).exists()  # switched back: released
    assert run_cli(*_clean_cli(store, tmp_path, "experiences")).returncode == 0


def test_a_writer_killed_while_it_holds_the_gate_leaves_the_store_writable(reference_stores,
                                                                           tmp_path):  # fmt: skip
    store = reference_stores / KUZU
    before = _rows(store)
    first = start_script(PAUSED_CLEAN, str(store), str(tmp_path / "a"), "EpisodicMemory")
    first.send_signal(signal.SIGKILL)
    first.communicate()
    assert first.returncode == -signal.SIGKILL
    assert gate_lock_path(store).exists()  # left behind, but no longer locked
    assert _rows(store) == before  # killed before it deleted: nothing lost
    result = run_cli(*_clean_cli(store, tmp_path / "b", "EpisodicMemory"))
    assert result.returncode == 0, result.stderr
    assert _rows(store)["EpisodicMemory"] == 0
