"""The one gate every write to a store passes: refuse, lock, check, then write.

``with write_gate(store, action="clean") as ticket:`` does, in order:

1. refuses at once with :class:`WritesDisabledError` when the environment says
   ``MEMEXPLORER_READ_ONLY=1`` (``memexplorer serve`` sets it for the app it serves);
2. refuses a legacy ``kuzu_db`` store the Rust layout replaced by ``graph_db``
   with :class:`LegacyStoreError`, naming the ``memexplorer migrate`` command
   that copies it (:mod:`.store_layout`);
3. takes the store's inter-process lock (:mod:`.gate_lock`: ``flock`` on
   ``<store>.memexplorer-lock``, 0600, naming its holder) for the whole write,
   staged copy included, or raises :class:`StoreBusyError` at once, naming the
   holder's PID and command: no waiting, so two writers never both succeed;
4. snapshots the store's files, so :meth:`GateTicket.ensure_unchanged` can refuse
   to rename a staged copy over changes someone made meanwhile (the agent itself
   does not take this lock).

Reentrant per process: entering the gate again for a store this process already
holds (import calling clean, a console write while the app holds the store in
writing mode, from any thread) shares the one lock and returns a ticket with
``nested=True``; the lock is released when the outermost entry exits. Within a
process, writes to one store are the caller's to serialise (the app does them one
at a time per store); between processes the gate does it. A forked child does not
inherit the parent's hold (it closes its copies of the lock at the fork), and the
lock file is opened close-on-exec.
"""

from __future__ import annotations

import contextlib
import os
import threading
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType

from memexplorer.operator.store_snapshot import StoreSnapshot, snapshot_store
from memexplorer.storage.exceptions import StoreChangedError, WritesDisabledError
from memexplorer.storage.gate_lock import acquire_lock, lock_path_for, release_lock
from memexplorer.storage.store_layout import legacy_store_refusal
from memexplorer.storage.stores import resolve_hierarchical_path
from memexplorer.storage.upgrade_check import refuse_store_upgrade

__all__ = [
    "READ_ONLY_ENV",
    "GateTicket",
    "gate_held",
    "gate_lock_path",
    "gate_store_path",
    "refuse_if_read_only",
    "write_gate",
    "writes_disabled",
]

#: Set to "1" to refuse every write in this process and its children.
READ_ONLY_ENV = "MEMEXPLORER_READ_ONLY"


def writes_disabled() -> bool:
    """Whether this process runs read-only (``MEMEXPLORER_READ_ONLY=1``)."""
    return os.environ.get(READ_ONLY_ENV) == "1"


def refuse_if_read_only(store: Path, outcome: str) -> None:
    """Raise :class:`WritesDisabledError` under ``MEMEXPLORER_READ_ONLY=1``, saying the
    ``outcome`` ("'clean' was refused")."""
    if writes_disabled():
        raise WritesDisabledError(
            store, f"Writes are disabled in this process ({READ_ONLY_ENV}=1), so {outcome}"
        )


def gate_store_path(store: str | Path) -> Path:
    """The path the gate locks for ``store``: an agent folder resolves to its database
    as HierarchicalMemory resolves it, the folder part to its real path (the store's
    own name is kept, so the lock lies beside the name writers use)."""
    path = resolve_hierarchical_path(Path(store).expanduser())
    return path.parent.resolve() / path.name


def gate_lock_path(store: str | Path) -> Path:
    """The lock file the gate holds while ``store`` is written."""
    return lock_path_for(gate_store_path(store))


@dataclass
class _Held:
    fd: int
    depth: int


#: The stores this process holds. Only this process's own entries are ever here: a
#: forked child empties it at the fork, so an entry needs no owner PID.
_HELD: dict[Path, _Held] = {}
_HELD_LOCK = threading.Lock()


def _forget_holds_in_child() -> None:
    """A forked child shares the parent's lock descriptions: it closes its copies (which
    leaves the parent's lock in place) so it never keeps a store locked after the parent
    is done, and holds nothing itself."""
    global _HELD_LOCK
    _HELD_LOCK = threading.Lock()  # another thread may have held it at the fork
    for held in _HELD.values():
        with contextlib.suppress(OSError):
            os.close(held.fd)
    _HELD.clear()


os.register_at_fork(after_in_child=_forget_holds_in_child)


def gate_held(store: str | Path) -> bool:
    """Whether this process holds the gate of ``store`` now."""
    with _HELD_LOCK:
        return gate_store_path(store) in _HELD


@dataclass
class GateTicket:
    """What a writer inside the gate may ask: has the store changed, may it upgrade."""

    store: Path
    action: str
    allow_upgrade: bool
    #: True when this process already held the gate (an outer write is running).
    nested: bool
    snapshot: StoreSnapshot = field(repr=False)

    @property
    def lock_path(self) -> Path:
        return lock_path_for(self.store)

    def ensure_unchanged(self) -> None:
        """Raise :class:`StoreChangedError` if the store's files (size, mtime, inode of
        the store and its sidecars) moved since the gate was entered or since
        :meth:`accept_changes`; call it right before renaming a staged copy over
        the store."""
        moved = self.snapshot.differences(snapshot_store(self.store))
        if moved:
            raise StoreChangedError(
                self.store,
                f"The store changed on disk while '{self.action}' was being prepared "
                f"({'; '.join(moved)}), so its result was not put in place",
            )

    def accept_changes(self) -> None:
        """Take the store as it is now (after this writer changed it itself)."""
        self.snapshot = snapshot_store(self.store)

    def refuse_upgrade(self, *, writes_version: int | None = None) -> None:
        """Raise :class:`~.exceptions.StoreUpgradeRequired` when this write would leave
        an older LadybugDB store in ``writes_version`` (default: the installed
        ladybug's), unless the gate was entered with ``allow_upgrade``."""
        if not self.allow_upgrade:
            refuse_store_upgrade(self.store, writes_version=writes_version)


class write_gate:
    """Enter the store's write gate for ``action`` (a few words: "clean", "import").

    Raises :class:`WritesDisabledError` or :class:`StoreBusyError` on entry; see
    the module's docstring. Exiting releases the lock (the outermost entry)."""

    def __init__(self, store: str | Path, *, action: str, allow_upgrade: bool = False) -> None:
        self.store = gate_store_path(store)
        self.action = action
        self.allow_upgrade = allow_upgrade

    def __enter__(self) -> GateTicket:
        refuse_if_read_only(self.store, f"'{self.action}' was refused")
        refusal = legacy_store_refusal(self.store)
        if refusal is not None:
            raise refusal
        with _HELD_LOCK:
            held = _HELD.get(self.store)
            nested = held is not None
            if held is not None:
                held.depth += 1
            else:
                _HELD[self.store] = _Held(acquire_lock(self.store, self.action), 1)
        try:
            snapshot = snapshot_store(self.store)
        except BaseException:
            self.__exit__(None, None, None)  # an entry that failed holds nothing
            raise
        return GateTicket(self.store, self.action, self.allow_upgrade, nested, snapshot)

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        with _HELD_LOCK:
            held = _HELD.get(self.store)
            if held is None:
                return
            held.depth -= 1
            if held.depth == 0:
                del _HELD[self.store]
                release_lock(self.store, held.fd)
