"""The app's hierarchical memories: one read-only HierarchicalMemory per (store, agent),
reading through the store the BrowserPool already has open.

Why not ``HierarchicalMemory(agent, path, mode="read")``: that constructor opens its
own ``kuzu.Database``. Kuzu lets a process hold a file read-write through one
Database only; read-only it does accept a second one, but each brings its own
256 MB buffer pool, its own cold cache and its own 8 TB address-space mapping, and
a store of two agents would be opened three times. ``engine/shared_graph.py``'s
reference-counted registry does not help either: the browsers hold a plain
``KuzuStore`` opened outside it, so acquiring the path there would open that
second Database anyway.

So the memory borrows the browser's store: :class:`BorrowedMemory` is the engine's
HierarchicalMemory with its store handed in instead of opened. Everything it reads
goes through the parent's ``graph``, ``agent_name`` and ``rel_tables()`` (so
``retrieve_subgraph`` runs the engine's code unchanged); writes are refused by the
parent's read mode; closing it leaves the store to its owner, the pool. When the
pool closes a store (reload) the next :meth:`MemoryPool.get` sees a different
browser and builds a new memory, so a closed store is never reused.
"""

from __future__ import annotations

import threading
from pathlib import Path

from memexplorer.memory.hierarchical_memory import HierarchicalMemory
from memexplorer.operator.browse import GraphBrowser
from memexplorer.operator.browsers import BrowserPool
from memexplorer.storage.exceptions import MemoryError
from memexplorer.storage.graph_store import GraphStore
from memexplorer.storage.names import validate_agent_name

__all__ = ["BorrowedMemory", "MemoryPool", "NotHierarchicalError"]


class NotHierarchicalError(MemoryError):
    title = "No retrieval for this store"
    hint = (
        "Retrieval (retrieve_subgraph) is a HierarchicalMemory feature: choose an agent "
        "of a hierarchical store (the stores under hierarchical_memory/)."
    )


class BorrowedMemory(HierarchicalMemory):
    """A read-only HierarchicalMemory on a store opened (and closed) by someone else."""

    def __init__(self, agent_name: str, graph: GraphStore) -> None:
        # The parent's __init__ is skipped on purpose: it would open the file again.
        self.agent_name = validate_agent_name(agent_name)
        self.db_path = graph.path
        self.mode = "read"
        self._borrowed: GraphStore | None = graph
        self._borrowed_rels: set[str] | None = None

    @property
    def graph(self) -> GraphStore:
        if self._borrowed is None:
            raise NotHierarchicalError("This memory has been closed")
        return self._borrowed

    def rel_tables(self) -> set[str]:
        if self._borrowed_rels is None:
            self._borrowed_rels = set(self.graph.rel_tables())
        return self._borrowed_rels

    def close(self) -> None:
        """Forget the store; its owner (the BrowserPool) closes it."""
        self._borrowed = None


class MemoryPool:
    """One memory per (store, agent), on the BrowserPool's open stores; thread-safe."""

    def __init__(self, browsers: BrowserPool) -> None:
        self.browsers = browsers
        self._memories: dict[tuple[Path, str], BorrowedMemory] = {}
        self._lock = threading.Lock()

    def get(self, path: Path, agent: str) -> BorrowedMemory:
        """The agent's memory in the store at ``path`` (opened read-only on first use)."""
        browser = self.browsers.get(path)
        if not isinstance(browser, GraphBrowser):
            raise NotHierarchicalError(f"{path} is not a Kuzu graph store")
        with self._lock:
            memory = self._memories.get((path, agent))
            if memory is None or memory._borrowed is not browser.graph:
                memory = BorrowedMemory(agent, browser.graph)
                self._memories[(path, agent)] = memory
            return memory
