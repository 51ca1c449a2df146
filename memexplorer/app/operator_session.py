"""The one interface the app's screens and widgets work through.

The App makes one :class:`OperatorSession` and passes it to every screen it builds
(and each screen to the screens and widgets it builds), so no screen reaches into
the App's attributes: the open stores (read-only browsers and the agents' memories
on them), the watch on their files, where backups go, and the few things only the
App can do (open a node with its history, show an error), behind :class:`AppShell`.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from pathlib import Path
from typing import Protocol

from memexplorer.app.widgets.node_ref import NodeRef
from memexplorer.operator.browse import StoreBrowser
from memexplorer.operator.browsers import BrowserPool
from memexplorer.operator.memories import BorrowedMemory, MemoryPool
from memexplorer.operator.store_watch import StoreWatch
from memexplorer.storage.store_home import HOME_MARKERS, home_of_store

__all__ = ["AppShell", "OperatorSession", "operator_home"]


class AppShell(Protocol):
    """What only the App does for a screen: node navigation and the one error path."""

    def open_node(self, ref: NodeRef) -> None: ...

    def close_nodes(self) -> None: ...

    def show_error(self, error: BaseException) -> None: ...


def operator_home(root: Path, store: Path | None) -> Path:
    """Where backups go: the app's root when it is an amplihack home, else the home
    above the store (as the CLI finds it: :func:`home_of_store`)."""
    if root.is_dir() and (root.name == ".amplihack" or any(
        (root / name).exists() for name in HOME_MARKERS
    )):  # fmt: skip
        return root
    return home_of_store(store) if store is not None else root


class OperatorSession:
    """The stores under ``root`` as the operator works on them in one app."""

    def __init__(self, root: Path, shell: AppShell) -> None:
        self.root = root
        self._shell = shell
        self.browsers = BrowserPool()
        self.memories = MemoryPool(self.browsers)
        self.store_watch = StoreWatch()
        #: Stores this app is writing now: their files move, and that is no news.
        self.writes_under_way: set[Path] = set()
        #: Stores that changed on disk since they were loaded, in the order noticed.
        self.changed_stores: list[Path] = []
        self._noticed: dict[Path, float] = {}

    # -- the open stores -------------------------------------------------------------------
    def browser(self, store: Path) -> StoreBrowser:
        """The store's browser, opened (read-only) on first use."""
        return self.browsers.get(store)

    def memory(self, store: Path, agent: str) -> BorrowedMemory:
        """The agent's HierarchicalMemory on the store's open browser."""
        return self.memories.get(store, agent)

    def mode(self, store: Path) -> str:
        """How the store is open: read-only, or writing (for headers)."""
        return self.browsers.mode(store)

    def writing(self, store: Path) -> bool:
        return self.browsers.writing(store)

    def writing_stores(self) -> list[Path]:
        return self.browsers.writing_stores()

    def set_writing(self, store: Path, writing: bool, *, allow_upgrade: bool = False) -> None:
        self.browsers.set_writing(store, writing, allow_upgrade=allow_upgrade)

    def interrupt(self, store: Path) -> None:
        """Stop the query running on the store's browser."""
        self.browsers.interrupt(store)

    def forget(self, *stores: Path) -> None:
        """Close the stores' browsers (a write needs the files; the next read reopens)."""
        for store in stores:
            self.browsers.forget(store)

    def close_all(self) -> None:
        self.browsers.close_all()

    def shutdown(self) -> None:
        self.browsers.shutdown()

    def home(self, store: Path | None) -> Path:
        """Where a write to ``store`` keeps its backups (see :func:`operator_home`)."""
        return operator_home(self.root, store)

    # -- our own writes, and changes from outside -------------------------------------------
    def begin_write(self, store: Path) -> None:
        """A write starts: the store's browser closes and its files' moves are no news."""
        self.writes_under_way.add(store)
        self.browsers.forget(store)

    def end_write(self, store: Path, *, wrote: bool = True) -> None:
        """The write ended; when it ``wrote``, what it changed on disk is ours, not news."""
        if wrote:
            self.store_watch.accept([store])
        self.writes_under_way.discard(store)

    def wrote(self, stores: Iterable[Path]) -> None:
        """The stores' files changed by our own write: no reload offer for it."""
        self.store_watch.accept(stores)

    def stores_listed(self, stores: Iterable[Path], started: float) -> None:
        """Watch what a listing found; a change noticed while it ran (``started``:
        time.monotonic) may not be in what it read, so it stays offered."""
        self.store_watch.watch(stores)
        self.changed_stores = [
            path for path in self.changed_stores if self._noticed.get(path, 0.0) >= started
        ]

    def newly_changed(self) -> list[Path]:
        """The stores changed on disk (not by a write of ours) and not yet offered."""
        fresh = []
        for path in self.store_watch.changed():
            if path in self.writes_under_way:
                continue
            self._noticed[path] = time.monotonic()
            if path not in self.changed_stores:
                self.changed_stores.append(path)
                fresh.append(path)
        return fresh

    def take_changed(self) -> list[Path]:
        """The changed stores, closed to be read again; none are offered after this."""
        paths, self.changed_stores = self.changed_stores, []
        self.forget(*paths)
        self.store_watch.accept(paths)
        return paths

    # -- what the App does ------------------------------------------------------------------
    def open_node(self, ref: NodeRef) -> None:
        """Show a node (the node screen, with back and forward)."""
        self._shell.open_node(ref)

    def close_nodes(self) -> None:
        """Back to where the nodes were opened from."""
        self._shell.close_nodes()

    def show_error(self, error: BaseException) -> None:
        """The one error path: the copyable error modal."""
        self._shell.show_error(error)
