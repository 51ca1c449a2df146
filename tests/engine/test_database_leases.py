"""One process never holds a second Kuzu database on a store it is writing.

The tour once showed "Damaged store — Found duplicated primary key value" after a
clean and its undo: a read-only open in another thread of the app (the tree's
reload) read the restore's log while the restore checkpointed it, and replayed a
row the data file already held. The file was sound. fcntl locks do not exclude
within a process, so only the process itself can keep its reads and writes of one
store apart (storage/database_leases.py); and a reader that opened beside a writer
dropped the writer's lock when it closed, letting another process in mid-write.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from memexplorer.operator.backups import restore_backup
from memexplorer.operator.browse import open_browser
from memexplorer.operator.clean import clean_store, clean_target
from memexplorer.operator.clean_selection import Selection
from memexplorer.operator.demo import write_demo_home
from memexplorer.storage import database_leases
from memexplorer.storage.database_leases import StoreInUseHereError, leases_held
from memexplorer.storage.exceptions import StoreError
from memexplorer.storage.graph_open import open_graph_store
from memexplorer.storage.graphdb import KuzuStore

OPS = "hierarchical_memory/ops-agent/graph_db"
#: How long a thread is given to get as far as it can before the test looks.
SETTLE_S = 0.5


def _fact_store(path: Path) -> Path:
    """A Kuzu store of facts f1 and f2 (hand-made: the counts below are its own)."""
    with open_graph_store(path, read_only=False, create="kuzu") as store:
        store.execute("CREATE NODE TABLE Fact(id STRING, PRIMARY KEY(id))")
        store.execute("CREATE (:Fact {id: 'f1'}), (:Fact {id: 'f2'})")
    return path


def _count(store: KuzuStore) -> int:
    return int(store.scalar("MATCH (f:Fact) RETURN count(f)"))


def _opened_in_thread(path: Path, read_only: bool, seen: list[object]) -> threading.Thread:
    """A thread that opens ``path``, records what it read (or its error) and closes."""

    def run() -> None:
        try:
            with KuzuStore(path, read_only=read_only) as store:
                seen.append(_count(store))
        except StoreError as error:
            seen.append(error)

    thread = threading.Thread(target=run)
    thread.start()
    return thread


@pytest.fixture(scope="module")
def _demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_demo_home(tmp_path_factory.mktemp("leases") / ".amplihack")


def test_a_read_beside_a_clean_and_its_undo_never_replays_their_log(_demo, tmp_path):
    """The tour's clean and undo on the demo's ops-agent, with the store read in other
    threads all the while (as the app's reloads do). Without the leases about one
    round in three met the restore's log being checkpointed."""
    home = tmp_path / ".amplihack"
    shutil.copytree(_demo, home, symlinks=True)
    store = home / OPS
    with open_graph_store(store) as graph:
        before = graph.rows("MATCH (n:SemanticMemory) RETURN n.memory_id ORDER BY n.memory_id")
    key = before[0][0]
    stop, failures, counts = threading.Event(), [], set()

    def read() -> None:
        while not stop.is_set():
            try:
                with open_graph_store(store) as graph:
                    counts.add(graph.scalar("MATCH (n:SemanticMemory) RETURN count(n)"))
            except StoreError as error:
                failures.append(error)

    readers = [threading.Thread(target=read) for _ in range(2)]
    for reader in readers:
        reader.start()
    try:
        selection = Selection(agent="ops-agent", table="SemanticMemory", ids=(key,))
        for _ in range(30):
            cleaned = clean_store(clean_target(store), selection, home=home)
            assert cleaned.backup is not None
            restore_backup(cleaned.backup.path)
    finally:
        stop.set()
        for reader in readers:
            reader.join()
    assert failures == []
    assert counts <= {len(before), len(before) - 1}
    with open_graph_store(store) as graph:
        after = graph.rows("MATCH (n:SemanticMemory) RETURN n.memory_id ORDER BY n.memory_id")
    assert after == before


def test_a_read_waits_for_the_write_and_sees_it_whole(tmp_path):
    path = _fact_store(tmp_path / "facts")
    seen: list[object] = []
    with KuzuStore(path, read_only=False) as writer:
        writer.execute("CREATE (:Fact {id: 'f3'})")
        reader = _opened_in_thread(path, True, seen)
        time.sleep(SETTLE_S)
        assert seen == [] and reader.is_alive()  # not opened beside the writer
        writer.execute("CREATE (:Fact {id: 'f4'})")
    reader.join(timeout=30)
    assert seen == [4]


def test_a_write_waits_for_the_reads_under_way(tmp_path):
    path = _fact_store(tmp_path / "facts")
    seen: list[object] = []
    with KuzuStore(path) as reading:
        writer = _opened_in_thread(path, False, seen)
        time.sleep(SETTLE_S)
        assert seen == [] and writer.is_alive()
        assert leases_held(path) == (1, False)
        assert _count(reading) == 2
    writer.join(timeout=30)
    assert seen == [2]
    assert leases_held(path) == (0, False)


def test_a_reader_closing_beside_a_writer_never_drops_the_writers_lock(tmp_path):
    """Before the leases, the in-process reader opened, closed, and took the writer's
    fcntl lock with it: another process then opened the store mid-write."""
    path = _fact_store(tmp_path / "facts")
    probe = (
        "import kuzu, sys\n"
        "try:\n    kuzu.Database(sys.argv[1], read_only=True)\n"
        "except RuntimeError:\n    print('locked')\nelse:\n    print('opened')\n"
    )
    seen: list[object] = []
    with KuzuStore(path, read_only=False) as writer:
        writer.execute("CREATE (:Fact {id: 'f3'})")
        reader = _opened_in_thread(path, True, seen)
        time.sleep(SETTLE_S)
        other = subprocess.run([sys.executable, "-c", probe, str(path)], capture_output=True,
                               text=True, timeout=60, check=True)  # fmt: skip
        assert other.stdout.strip() == "locked"
    reader.join(timeout=30)
    assert seen == [3]


def test_writing_mode_lends_its_database_to_reads(tmp_path):
    """The app's writing mode keeps a read-write browser open: reads elsewhere in the
    app (the tree, a preview) share its database instead of waiting for it."""
    path = _fact_store(tmp_path / "facts")
    browser = open_browser(path, writable=True)
    seen: list[object] = []
    try:
        browser.graph.execute("CREATE (:Fact {id: 'f3'})")
        _opened_in_thread(path, True, seen).join(timeout=30)
        assert seen == [3]
        with KuzuStore(path) as reading:  # the close waits for this one
            assert leases_held(path) == (1, True)
            closer = threading.Thread(target=browser.close)
            closer.start()
            time.sleep(SETTLE_S)
            assert closer.is_alive()
            assert _count(reading) == 3
        closer.join(timeout=30)
        assert not closer.is_alive()
    finally:
        browser.close()
    assert leases_held(path) == (0, False)


def test_a_writer_reads_its_own_store_on_its_own_database(tmp_path):
    path = _fact_store(tmp_path / "facts")
    with KuzuStore(path, read_only=False) as writer:
        writer.execute("CREATE (:Fact {id: 'f3'})")
        with KuzuStore(path) as again:  # same thread: waiting for itself would never end
            assert _count(again) == 3
            assert leases_held(path) == (1, True)
    assert leases_held(path) == (0, False)


def test_a_reader_cannot_write_from_its_own_thread(tmp_path):
    path = _fact_store(tmp_path / "facts")
    with KuzuStore(path), pytest.raises(StoreInUseHereError, match="already has the store open"):
        KuzuStore(path, read_only=False)
    with KuzuStore(path, read_only=False) as writer:  # and nothing was left held
        assert _count(writer) == 2


def test_a_wait_has_a_deadline(tmp_path, monkeypatch):
    monkeypatch.setattr(database_leases, "WAIT_S", 0.2)
    path = _fact_store(tmp_path / "facts")
    seen: list[object] = []
    with KuzuStore(path, read_only=False):
        _opened_in_thread(path, True, seen).join(timeout=30)
    [error] = seen
    assert isinstance(error, StoreInUseHereError)
    assert "Waited 0.2 s for its write in this process to finish" in str(error)
    assert leases_held(path) == (0, False)
