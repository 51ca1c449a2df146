"""Who holds a store's Kuzu database in this process: readers together, or one writer.

Kuzu locks a store's file with ``fcntl``, and ``fcntl`` locks do not exclude within
one process. A read-only database opened while this process writes the store reads
the writer's log as it checkpoints: met between the data file's update and the log's
removal, it replays rows the file already holds ("Found duplicated primary key
value", shown as a damaged store although the file is sound). And closing that
reader drops the writer's own lock, so another process (the agent) may open the
store in the middle of the write. So every :class:`~.graphdb.KuzuStore` takes a
lease here before it opens its database, and gives it back once the database is
closed:

- a read-only open waits while another thread of this process has the store open
  read-write; a read-write open waits until every read-only database on the store
  in this process is closed and no other writer has it;
- a writer that ``lends`` (the app's writing mode, open for as long as the operator
  keeps it) lets read-only opens share its database, each on a connection of its
  own; its close waits until they are done;
- a thread that holds the writer and opens the store read-only shares the writer's
  database (waiting for itself would never end); a thread that holds a reader and
  opens read-write is refused at once, for the same reason.

A wait that lasts longer than :data:`WAIT_S` raises :class:`StoreInUseHereError`.
"""

from __future__ import annotations

import os
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memexplorer.storage.exceptions import StoreLockedError

__all__ = ["WAIT_S", "Lease", "StoreInUseHereError", "lease_database", "leases_held"]

#: How long an open waits for this process's other users of the store, seconds.
WAIT_S = 120.0


class StoreInUseHereError(StoreLockedError):
    """This process itself holds the store in a way the open cannot wait out."""

    title = "This app is using the store"
    hint = (
        "memexplorer itself has this store open (a write, or a read that has not "
        "finished). Retry when it has finished; nothing was changed."
    )


@dataclass
class _Holders:
    """The databases of this process on one store."""

    # Threads, not their idents: a new thread may be given a finished one's ident.
    readers: dict[threading.Thread, int] = field(default_factory=dict)  # read-only databases
    writer: threading.Thread | None = None  # the thread that opened the read-write database
    database: Any = None  # the writer's database, once open
    lending: bool = False  # read-only opens of other threads may share it
    borrowers: int = 0
    waiting_writers: int = 0  # new readers let them go first

    def idle(self) -> bool:
        return not self.readers and self.writer is None and self.borrowers == 0


#: Every store this process has opened (kept: a waiter holds its entry).
_HOLDERS: dict[Path, _Holders] = {}
_CHANGED = threading.Condition()


def _nothing_held_in_child() -> None:
    """A forked child has none of its parent's threads, and must not use their
    databases: it starts with no holders (and a lock no parent thread can hold)."""
    global _CHANGED
    _CHANGED = threading.Condition()
    _HOLDERS.clear()


os.register_at_fork(after_in_child=_nothing_held_in_child)


@dataclass
class Lease:
    """One database (or one shared connection) on ``key``; give it back once."""

    key: Path
    read_only: bool
    #: The writer's database this read-only open shares (None: open one of its own).
    database: Any = None
    #: The thread that opened it (a store may be closed from another).
    thread: threading.Thread = field(default_factory=threading.current_thread)
    _returned: bool = False

    def opened(self, database: Any, *, lend: bool) -> None:
        """The writer's ``database`` is open; ``lend``: other threads' read-only opens
        share it until :meth:`closing`."""
        with _CHANGED:
            holders = _HOLDERS[self.key]
            holders.database, holders.lending = database, lend
            _CHANGED.notify_all()

    def closing(self) -> None:
        """The writer is about to close: no new sharers, and wait for those there are."""
        with _CHANGED:
            holders = _HOLDERS[self.key]
            holders.lending = False
            _wait(lambda: holders.borrowers == 0, self.key, "its readers here to finish")

    def give_back(self) -> None:
        with _CHANGED:
            if self._returned:
                return
            self._returned = True
            holders = _HOLDERS[self.key]
            opener = self.thread
            if self.database is not None:
                holders.borrowers -= 1
            elif self.read_only:
                holders.readers[opener] -= 1
                if holders.readers[opener] <= 0:
                    del holders.readers[opener]
            else:
                holders.writer, holders.database, holders.lending = None, None, False
            _CHANGED.notify_all()


def _wait(ready: Any, key: Path, what: str) -> None:
    """Wait (holding ``_CHANGED``) until ``ready()``, at most WAIT_S."""
    deadline = time.monotonic() + WAIT_S
    while not ready():
        left = deadline - time.monotonic()
        if left <= 0:
            raise StoreInUseHereError(key, f"Waited {WAIT_S:g} s for {what}")
        _CHANGED.wait(left)


def lease_database(path: Path, *, read_only: bool) -> Lease:
    """Wait until this process may open ``path`` so, and take the lease."""
    key = path.resolve()
    me = threading.current_thread()
    with _CHANGED:
        holders = _HOLDERS.setdefault(key, _Holders())
        if read_only:
            if holders.writer == me and holders.database is not None:
                return _borrow(key, holders)  # waiting for itself would never end
            nested = bool(holders.readers.get(me))  # a writer waits for this one
            _wait(lambda: (holders.writer is None and (nested or not holders.waiting_writers))
                  or _lent(holders), key, "its write in this process to finish")  # fmt: skip
            if holders.writer is not None:
                return _borrow(key, holders)
            holders.readers[me] = holders.readers.get(me, 0) + 1
            return Lease(key, read_only=True)
        if holders.readers.get(me) or holders.writer == me:
            raise StoreInUseHereError(
                key, "This thread already has the store open, so it cannot open it to write"
            )
        holders.waiting_writers += 1
        try:
            _wait(holders.idle, key, "its other users in this process to close it")
        finally:
            holders.waiting_writers -= 1
        holders.writer = me
        return Lease(key, read_only=False)


def _lent(holders: _Holders) -> bool:
    return holders.lending and holders.database is not None


def _borrow(key: Path, holders: _Holders) -> Lease:
    holders.borrowers += 1
    return Lease(key, read_only=True, database=holders.database)


def leases_held(path: Path) -> tuple[int, bool]:
    """How many read-only databases and whether a writer this process holds on ``path``."""
    with _CHANGED:
        holders = _HOLDERS.get(path.resolve(), _Holders())
        readers = sum(holders.readers.values()) + holders.borrowers
        return readers, holders.writer is not None
