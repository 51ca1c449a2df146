"""The app's open stores: one browser per store, opened on first use, read-only
unless the operator switched that store to writing mode.

Opening runs in worker threads; the lock makes two workers asking for the same
store share one browser (kuzu allows one database object per file per process),
and makes a switch of mode close and reopen the store with no one opening it
in between.

A store in writing mode holds its write gate (:mod:`memexplorer.operator.write_gate`)
for as long as it stays in writing mode: another memexplorer process that tries
to write it (a clean from the command line, another app) is refused at once,
naming this one. The gate is released when the store goes back to read-only or
the app exits (and by the kernel if the app is killed).
"""

from __future__ import annotations

import threading
from pathlib import Path

from memexplorer.operator.browse import StoreBrowser, open_browser
from memexplorer.operator.read_only_session import read_only_label
from memexplorer.operator.write_gate import write_gate
from memexplorer.storage.exceptions import StoreLockedError


class BrowserPool:
    def __init__(self) -> None:
        self._browsers: dict[Path, StoreBrowser] = {}
        #: Stores in writing mode: reopened read-write whenever they are reopened.
        self._writing: set[Path] = set()
        #: The write gate each store in writing mode holds.
        self._gates: dict[Path, write_gate] = {}
        self._lock = threading.Lock()

    def get(self, path: Path) -> StoreBrowser:
        with self._lock:
            browser = self._browsers.get(path)
            if browser is None:
                browser = self._open(path)
                self._browsers[path] = browser
            return browser

    def _open(self, path: Path) -> StoreBrowser:
        """Open in the store's mode; a writing store another process took meanwhile
        falls back to read-only (the headers then say so)."""
        if path in self._writing:
            try:
                return open_browser(path, writable=True)
            except StoreLockedError:
                self._stop_writing(path)
        return open_browser(path)

    def _stop_writing(self, path: Path) -> None:
        self._writing.discard(path)
        gate = self._gates.pop(path, None)
        if gate is not None:
            gate.__exit__(None, None, None)

    # -- writing mode ------------------------------------------------------------------
    def writing(self, path: Path) -> bool:
        return path in self._writing

    def writing_stores(self) -> list[Path]:
        return sorted(self._writing)

    def mode(self, path: Path) -> str:
        """What the headers say about the store: "writing" or "read-only" ("served
        read-only" when the whole session cannot write), and for a store read at its
        last checkpoint (an older writer's log left unreplayed), so."""
        if path in self._writing:
            return "writing"
        graph = getattr(self._browsers.get(path), "graph", None)
        left = getattr(graph, "unreplayed_log", None)
        label = read_only_label()
        if getattr(graph, "read_by_cache", False):
            replayed = ", its log replayed on a private copy" if graph.replayed_log else ""
            return f"{label}, read by {graph.read_by}{replayed}"
        return f"{label}, {left.note}" if left is not None else label

    def set_writing(self, path: Path, writing: bool, *, allow_upgrade: bool = False) -> None:
        """Close the store and reopen it read-write (or read-only again).

        Switching to writing takes the store's write gate first: StoreBusyError
        while another memexplorer process writes it, WritesDisabledError under
        MEMEXPLORER_READ_ONLY=1 (the store is then left open as it was). Reopening
        read-write fails (StoreLockedError) while another process holds the
        store, or (StoreUpgradeRequired) when it would rewrite an older LadybugDB
        store and ``allow_upgrade`` is not given; the store is then reopened
        read-only, as it was, the gate released, and the error propagates.
        """
        with self._lock:
            if not writing:
                old = self._browsers.pop(path, None)
                if old is not None:
                    old.close()
                self._stop_writing(path)
                self._browsers[path] = open_browser(path)
                return
            gate = self._gates.get(path) or write_gate(path, action="writing mode (app)")
            if path not in self._gates:
                gate.__enter__()  # StoreBusyError, WritesDisabledError: nothing reopened
            old = self._browsers.pop(path, None)
            if old is not None:
                old.close()
            try:
                self._browsers[path] = open_browser(
                    path, writable=True, allow_upgrade=allow_upgrade
                )
            except BaseException:
                if path not in self._gates:
                    gate.__exit__(None, None, None)
                self._browsers[path] = open_browser(path)
                raise
            self._gates[path] = gate
            self._writing.add(path)

    def interrupt(self, path: Path) -> None:
        browser = self._browsers.get(path)
        if browser is not None:
            browser.interrupt()

    def forget(self, path: Path) -> None:
        """Close one store (to reopen it fresh, say after it changed on disk)."""
        with self._lock:
            browser = self._browsers.pop(path, None)
        if browser is not None:
            browser.close()

    def shutdown(self) -> None:
        """Close every store and leave writing mode (release every write gate)."""
        self.close_all()
        with self._lock:
            for path in list(self._writing):
                self._stop_writing(path)

    def close_all(self) -> None:
        with self._lock:
            browsers, self._browsers = list(self._browsers.values()), {}
        for browser in browsers:
            browser.close()
