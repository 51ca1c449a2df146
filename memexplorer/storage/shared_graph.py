"""One open Kuzu database per file per process, shared by the memories on it.

Kuzu holds a file read-write through one Database object per process: a second
one fails on the file lock. Several memories (one per agent) on one path
therefore share a :class:`SharedGraph`: reference-counted, opened read-only
while nobody writes (so reading a running agent's store never locks or changes
it), and reopened read-write for all of them when the first one writes.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from memexplorer.storage.exceptions import StoreNotFoundError
from memexplorer.storage.graph_open import open_graph_store
from memexplorer.storage.graph_store import GraphStore
from memexplorer.storage.memory_budget import EngineLimits
from memexplorer.storage.private_dirs import make_private_dirs

__all__ = ["SharedGraph", "acquire_graph", "open_count", "release_graph"]

_REGISTRY: dict[Path, SharedGraph] = {}
_REGISTRY_LOCK = threading.Lock()


def _open(path: Path, *, read_only: bool, limits: EngineLimits) -> GraphStore:
    """Open ``path`` with the engine its header names (a new store is Kuzu)."""
    return open_graph_store(
        path, read_only=read_only, create="kuzu", buffer_pool_size=limits.buffer_pool_size,
        max_db_size=limits.max_db_size,
    )  # fmt: skip


class SharedGraph:
    """The store behind every memory open on one path in this process.

    Queries go through this handle (under its lock) rather than through the
    GraphStore, so that switching to read-write swaps the store for all users
    without one of them holding a closed connection.
    """

    def __init__(self, key: Path, path: Path, store: GraphStore, limits: EngineLimits) -> None:
        self.key = key
        self.path = path
        self.users = 1
        self._store: GraphStore | None = store
        self._limits = limits
        self._lock = threading.RLock()
        self._tables: set[str] | None = None

    @property
    def read_only(self) -> bool:
        """Whether the store is open read-only; a reopen for writing under way
        (:meth:`make_writable`, which holds no store meanwhile) is waited for."""
        with self._lock:
            return self._current().read_only

    def rows(
        self, cypher: str, params: dict[str, Any] | None = None, *, reuse: bool = False
    ) -> list[list[Any]]:
        with self._lock:
            return self._current().rows(cypher, params, reuse=reuse)

    def scalar(self, cypher: str, params: dict[str, Any] | None = None) -> Any:
        rows = self.rows(cypher, params)
        return rows[0][0] if rows else None

    def execute(
        self, cypher: str, params: dict[str, Any] | None = None, *, reuse: bool = False
    ) -> None:
        with self._lock:
            self._current().execute(cypher, params, reuse=reuse)

    @contextmanager
    def transaction(self) -> Iterator[SharedGraph]:
        """Writes inside commit together; other threads wait until they do."""
        with self._lock, self._current().transaction():
            yield self

    def columns(self, table: str) -> list[tuple[str, str]]:
        with self._lock:
            return self._current().columns(table)

    def table_names(self) -> set[str]:
        """Node and rel tables present (cached until :meth:`forget_catalog`)."""
        with self._lock:
            if self._tables is None:
                store = self._current()
                self._tables = set(store.node_tables()) | set(store.rel_tables())
            return set(self._tables)

    def forget_catalog(self) -> None:
        with self._lock:
            self._tables = None

    def make_writable(self) -> None:
        """Reopen read-write (for every user of this handle).

        If another process holds the file, the error propagates and the store
        is reopened read-only, exactly as it was.
        """
        with self._lock:
            store = self._current()
            if not store.read_only:
                return
            store.close()
            self._store = None
            try:
                self._store = _open(self.path, read_only=False, limits=self._limits)
            except Exception:
                self._store = _open(self.path, read_only=True, limits=self._limits)
                raise
            finally:
                self._tables = None

    def _current(self) -> GraphStore:
        """The store open now; callers hold the lock, as :meth:`make_writable` swaps it."""
        if self._store is None:
            raise StoreNotFoundError(self.path, "This store has been closed")
        return self._store

    def _close(self) -> None:
        with self._lock:
            if self._store is not None:
                self._store.close()
                self._store = None


def acquire_graph(
    path: str | Path, *, create: bool, buffer_pool_size: int = 0, max_db_size: int = 0
) -> SharedGraph:
    """The shared handle for ``path``, opening it if this process has not.

    An existing file opens read-only; a missing one is created (with its
    parent folders) when ``create`` is set, else :class:`StoreNotFoundError`.
    The first opener's buffer pool and size limit apply to everyone sharing it.
    """
    path = Path(path)
    key = path.resolve()
    with _REGISTRY_LOCK:
        shared = _REGISTRY.get(key)
        if shared is not None:
            shared.users += 1
            return shared
        limits = EngineLimits(buffer_pool_size if buffer_pool_size > 0 else None, max_db_size)
        if path.exists() or path.is_symlink():
            store = _open(path, read_only=True, limits=limits)
        elif create:
            make_private_dirs(path.parent)
            store = _open(path, read_only=False, limits=limits)
        else:
            raise StoreNotFoundError(path, "No store at this path")
        shared = SharedGraph(key, path, store, limits)
        _REGISTRY[key] = shared
        return shared


def release_graph(shared: SharedGraph) -> None:
    """One user is done; the last one closes the database."""
    with _REGISTRY_LOCK:
        shared.users -= 1
        if shared.users > 0:
            return
        if _REGISTRY.get(shared.key) is shared:
            del _REGISTRY[shared.key]
        # Closed under the registry lock: a new opener of this path must not
        # meet the file still locked by the database being closed.
        shared._close()


def open_count(path: str | Path) -> int:
    """How many users share ``path`` in this process (0 when it is not open)."""
    with _REGISTRY_LOCK:
        shared = _REGISTRY.get(Path(path).resolve())
        return shared.users if shared else 0
