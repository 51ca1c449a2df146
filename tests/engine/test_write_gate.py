"""The write gate: one writer per store across processes, refusals that say who."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import stat
import struct
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from gate_helpers import gate_held_elsewhere, kill_holder, start_holder

from memexplorer.operator.write_gate import gate_held, gate_lock_path, write_gate
from memexplorer.storage.exceptions import (
    StoreBusyError,
    StoreChangedError,
    StorePermissionError,
    StoreUpgradeRequired,
    WritesDisabledError,
)


@pytest.fixture
def store(tmp_path: Path) -> Path:
    path = tmp_path / "agent.db"
    path.write_bytes(b"SQLite format 3\x00" + bytes(100))
    return path


def test_lock_file_is_private_names_its_holder_and_goes_away(store: Path) -> None:
    lock = gate_lock_path(store)
    with write_gate(store, action="clean") as ticket:
        assert lock == store.with_name("agent.db.memexplorer-lock") == ticket.lock_path
        assert stat.S_IMODE(lock.stat().st_mode) == 0o600
        holder = json.loads(lock.read_text())
        assert holder["pid"] == os.getpid()
        assert holder["action"] == "clean"
        assert "pytest" in holder["command"] or "python" in holder["command"]
        assert holder["started_at"]
        assert gate_held(store)
    assert not lock.exists()
    assert not gate_held(store)


def test_second_process_is_refused_at_once_naming_the_holder(store: Path) -> None:
    with gate_held_elsewhere(store, "import --merge") as pid:
        with pytest.raises(StoreBusyError) as caught, write_gate(store, action="clean"):
            pytest.fail("entered a gate another process holds")
        assert caught.value.pid == pid
        assert f"PID {pid}" in caught.value.message
        assert "import --merge" in caught.value.message
        assert f"kill {pid}" in caught.value.hint
        assert not gate_held(store)
    with write_gate(store, action="clean") as ticket:  # released with the holder
        assert not ticket.nested


def test_holder_killed_by_sigkill_leaves_the_lock_reclaimable(store: Path) -> None:
    holder = start_holder(store)
    kill_holder(holder)
    assert gate_lock_path(store).exists()  # the file stays; the flock went with the process
    with write_gate(store, action="clean"):
        assert json.loads(gate_lock_path(store).read_text())["pid"] == os.getpid()


def test_reentrant_within_one_process_released_by_the_outermost(store: Path) -> None:
    with write_gate(store, action="import") as outer:
        assert not outer.nested
        with write_gate(store, action="clean") as inner:
            assert inner.nested
        assert gate_held(store)
        seen: list[bool] = []

        def other_thread() -> None:
            with write_gate(store, action="console write") as ticket:
                seen.append(ticket.nested)

        thread = threading.Thread(target=other_thread)
        thread.start()
        thread.join()
        assert seen == [True]
        assert json.loads(gate_lock_path(store).read_text())["action"] == "import"
    assert not gate_held(store)
    with gate_held_elsewhere(store):  # really released: another process can take it
        pass


def test_an_entry_that_fails_after_the_lock_holds_nothing(
    store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A store whose files cannot be listed fails the entry; the lock taken just before
    is released, so the next write (in this process or another) is not refused."""

    def unreadable(path: Path) -> None:
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr("memexplorer.operator.write_gate.snapshot_store", unreadable)
    with pytest.raises(PermissionError), write_gate(store, action="clean"):
        pytest.fail("entered a gate that could not snapshot the store")
    assert not gate_held(store)
    with gate_held_elsewhere(store):
        pass


def test_store_and_action_may_be_named(store: Path) -> None:
    with write_gate(store=store, action="clean") as ticket:
        assert (ticket.store, ticket.action, ticket.nested) == (store, "clean", False)
    with pytest.raises(TypeError):
        write_gate(store, "clean")  # type: ignore[misc]  # the action is always named


def test_read_only_environment_refuses_before_any_lock(
    store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMEXPLORER_READ_ONLY", "1")
    with pytest.raises(WritesDisabledError) as caught, write_gate(store, action="clean"):
        pytest.fail("wrote with writes disabled")
    assert "MEMEXPLORER_READ_ONLY=1" in caught.value.message
    assert "serve" in caught.value.hint
    assert not gate_lock_path(store).exists()
    monkeypatch.setenv("MEMEXPLORER_READ_ONLY", "0")
    with write_gate(store, action="clean"):
        pass


def test_ensure_unchanged_sees_writes_to_the_store_and_its_sidecars(store: Path) -> None:
    with write_gate(store, action="import") as ticket:
        ticket.ensure_unchanged()
        store.with_name("agent.db-wal").write_bytes(b"x" * 32)
        with pytest.raises(StoreChangedError, match=r"agent\.db-wal appeared"):
            ticket.ensure_unchanged()
        ticket.accept_changes()
        ticket.ensure_unchanged()
        with store.open("ab") as handle:
            handle.write(b"more")
        with pytest.raises(StoreChangedError, match=r"agent\.db went from"):
            ticket.ensure_unchanged()
        ticket.accept_changes()
        replacement = store.with_name("staged")
        replacement.write_bytes(store.read_bytes())
        os.utime(replacement, ns=(store.stat().st_atime_ns, store.stat().st_mtime_ns))
        os.replace(replacement, store)  # same size and time, another inode
        with pytest.raises(StoreChangedError, match="replaced by another file") as caught:
            ticket.ensure_unchanged()
        assert "import" in caught.value.message


def test_sqlite_shared_memory_file_of_readers_is_not_a_change(store: Path) -> None:
    with write_gate(store, action="import") as ticket:
        store.with_name("agent.db-shm").write_bytes(b"readers' marks")
        ticket.ensure_unchanged()


def _ladybug_file(path: Path, version: int) -> Path:
    path.write_bytes(b"LBUG" + struct.pack("<Q", version) + bytes(64))
    return path


def test_refuse_upgrade_of_an_older_ladybug_store_unless_allowed(tmp_path: Path) -> None:
    old = _ladybug_file(tmp_path / "old.lbug", 47)
    with write_gate(old, action="import") as ticket:
        with pytest.raises(StoreUpgradeRequired) as caught:
            ticket.refuse_upgrade(writes_version=49)
        assert (caught.value.found, caught.value.installed) == (47, 49)
        ticket.refuse_upgrade(writes_version=47)  # same version: no upgrade
    with write_gate(old, action="import", allow_upgrade=True) as ticket:
        ticket.refuse_upgrade(writes_version=49)
    kuzu = tmp_path / "graph.kuzu"
    kuzu.write_bytes(b"KUZU" + struct.pack("<Q", 39) + bytes(64))
    with write_gate(kuzu, action="import") as ticket:
        ticket.refuse_upgrade(writes_version=49)


def test_refuse_upgrade_defaults_to_the_installed_ladybug(tmp_path: Path) -> None:
    pytest.importorskip("ladybug")
    old = _ladybug_file(tmp_path / "old.lbug", 40)
    with write_gate(old, action="import") as ticket, pytest.raises(StoreUpgradeRequired):
        ticket.refuse_upgrade()


def test_folder_store_is_locked_beside_the_folder(tmp_path: Path) -> None:
    folder = tmp_path / "old_db"
    folder.mkdir()
    (folder / "catalog.kz").write_bytes(b"KUZU" + bytes(12))
    with write_gate(folder, action="clean") as ticket:
        assert ticket.lock_path == tmp_path / "old_db.memexplorer-lock"
        (folder / "data.kz").write_bytes(b"new")
        with pytest.raises(StoreChangedError, match=r"old_db/data\.kz appeared"):
            ticket.ensure_unchanged()


def test_agent_folder_and_its_database_share_one_lock(tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    agent.mkdir()
    (agent / "graph_db").write_bytes(b"KUZU" + struct.pack("<Q", 39))
    with (
        gate_held_elsewhere(agent / "graph_db"),
        pytest.raises(StoreBusyError),
        write_gate(agent, action="import"),
    ):
        pytest.fail("two names for one store got two locks")


def test_a_link_at_the_lock_path_is_not_followed(store: Path, tmp_path: Path) -> None:
    target = tmp_path / "elsewhere"
    gate_lock_path(store).symlink_to(target)
    with pytest.raises(StorePermissionError), write_gate(store, action="clean"):
        pytest.fail("locked through a symbolic link")
    assert not target.exists()


FORKING_HOLDER = """
import os, signal, sys
from memexplorer.operator.write_gate import write_gate
with write_gate(sys.argv[1], action="forking"):
    child = os.fork()
    if child == 0:
        os.close(0), os.close(1)  # so the test sees the holder's pipes close with it
        signal.pause()  # alive, with whatever it inherited, until the test kills it
        os._exit(0)
    print("ready", child, flush=True)
    sys.stdin.read()
"""


def test_a_child_forked_by_a_killed_holder_does_not_keep_the_store_locked(store: Path) -> None:
    holder = subprocess.Popen(
        [sys.executable, "-c", FORKING_HOLDER, str(store)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert holder.stdout is not None
    word, child = holder.stdout.readline().split()
    assert word == "ready"
    try:
        with pytest.raises(StoreBusyError), write_gate(store, action="clean"):
            pytest.fail("entered while the holder lives")
        kill_holder(holder)
        with write_gate(store, action="clean"):  # the child lives on, holding nothing
            os.kill(int(child), 0)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(int(child), signal.SIGKILL)
