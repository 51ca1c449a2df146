"""StoreWatch: which stores changed on disk since the last look (stat calls only)."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from memexplorer.operator.store_watch import StoreWatch, stamp_store, store_place


def _touch(path: Path, data: bytes, mtime_ns: int) -> None:
    path.write_bytes(data)
    os.utime(path, ns=(mtime_ns, mtime_ns))


def test_a_change_to_the_file_or_its_wal_is_seen_once(tmp_path: Path) -> None:
    store, other = tmp_path / "a" / "kuzu_db", tmp_path / "b" / "kuzu_db"
    for path in (store, other):
        path.parent.mkdir()
        _touch(path, b"x" * 10, 1_000_000_000)
    watch = StoreWatch([store, other])
    assert watch.changed() == []
    _touch(store, b"x" * 10, 2_000_000_000)  # same size, newer
    assert watch.changed() == [store]
    assert watch.changed() == []  # seen: not reported again
    _touch(other.with_name("kuzu_db.wal"), b"log", 1_000_000_000)  # a writer's WAL appears
    assert watch.changed() == [other]
    _touch(other.with_name("kuzu_db.wal"), b"longer log", 1_000_000_000)
    assert watch.changed() == [other]
    other.with_name("kuzu_db.wal").unlink()  # checkpointed
    assert watch.changed() == [other]


def test_an_empty_sidecar_is_no_write(tmp_path: Path) -> None:
    """A reader in WAL mode may create an empty -wal file: that is not a change."""
    store = tmp_path / "experiences.db"
    _touch(store, b"db", 1_000_000_000)
    watch = StoreWatch([store])
    (tmp_path / "experiences.db-wal").touch()
    assert watch.changed() == []
    assert stamp_store(store)[1:] == (None, None, None)


def test_a_sqlite_write_beside_an_open_reader(tmp_path: Path) -> None:
    store = tmp_path / "experiences.db"
    writer = sqlite3.connect(store)
    writer.execute("PRAGMA journal_mode=wal")
    writer.execute("CREATE TABLE t (x)")
    writer.commit()
    reader = sqlite3.connect(f"file:{store}?mode=ro", uri=True)
    assert reader.execute("SELECT count(*) FROM t").fetchone() == (0,)
    watch = StoreWatch([store])
    assert watch.changed() == []
    writer.execute("INSERT INTO t VALUES (1)")
    writer.commit()
    assert watch.changed() == [store]
    assert reader.execute("SELECT count(*) FROM t").fetchone() == (1,)
    assert watch.changed() == []  # reading is not writing
    reader.close()
    writer.close()


def test_watch_keeps_the_last_look_of_stores_still_listed(tmp_path: Path) -> None:
    """Re-listing the stores must not swallow a change noticed by nobody yet."""
    kept, dropped, added = (tmp_path / name for name in ("kept", "dropped", "added"))
    for path in (kept, dropped, added):
        _touch(path, b"1", 1_000_000_000)
    watch = StoreWatch([kept, dropped])
    _touch(kept, b"12", 1_000_000_000)
    watch.watch([kept, added])
    assert watch.paths == [kept, added]
    assert watch.changed() == [kept]
    _touch(added, b"12", 1_000_000_000)
    watch.accept([added])  # reloaded by the app: taken as it is now
    assert watch.changed() == []


def test_a_missing_store_is_watched_too(tmp_path: Path) -> None:
    store = tmp_path / "gone"
    watch = StoreWatch([store])
    assert stamp_store(store) == (None, None, None, None)
    _touch(store, b"new", 1_000_000_000)
    assert watch.changed() == [store]


def test_store_place_names_the_store_as_the_tree_does(tmp_path: Path) -> None:
    root = tmp_path / "home"
    path = root / "hierarchical_memory" / "ops-agent" / "kuzu_db"
    assert store_place(path, root) == "ops-agent/kuzu_db"
    assert store_place(root, root) == "home"
    assert store_place(Path("/elsewhere/x/y"), root) == "x/y"
