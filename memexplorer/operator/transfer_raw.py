"""A raw-db import: the agent's store becomes a copy of another store file.

The copy is built in a private stage folder beside the store (0o600 before its
first byte) and renamed over the store last, inside the write gate. The old
store stays at its path until that rename: its ``.bak`` sibling (the spec's) is
a hard link made just before it, never a move, and a whole copy goes to
``<home>/backups`` as for every replace import. A process killed at any point
leaves the old store, whole, at its path.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from memexplorer.operator.transfer_common import (
    SIDECARS,
    ImportResult,
    agent_counts,
    probe_unlocked,
)
from memexplorer.operator.transfer_files import (
    copy_into_private_file,
    copy_tree,
    keep_bak_copy,
    stage_folder,
)
from memexplorer.operator.transfer_import import (
    backup_before_replace,
    fold_pending_log,
    put_in_place,
)
from memexplorer.operator.write_gate import GateTicket
from memexplorer.storage.exceptions import InvalidInputError, NotAStoreError
from memexplorer.storage.graph_open import open_graph_store, require_graph_readable
from memexplorer.storage.progress import TaskControl, checkpoint
from memexplorer.storage.stores import sniff

__all__ = ["import_raw"]


def _source_counts(agent: str, source: Path, warnings: list[str]) -> dict[str, int]:
    fmt = sniff(source)
    if fmt.layout == "directory":
        warnings.append(f"{source} is an older folder-layout store: copied as is, not read")
        return {}
    require_graph_readable(fmt)
    probe_unlocked(source)
    counts = agent_counts(agent, source)
    if not counts["SemanticMemory"] and not counts["EpisodicMemory"]:
        raise NotAStoreError(
            source,
            f"This store holds no memories for agent {agent!r}; nothing was changed",
            hint="Check the agent name (memexplorer stats lists the agents of a store).",
        )
    return counts


def _stage_copy(source: Path, stage: Path, control: TaskControl | None) -> None:
    """Copy the source file (and fold its write-ahead log in) as one self-contained file."""
    copy_into_private_file(source, stage, control)
    wal = source.with_name(source.name + ".wal")
    if wal.is_file() and not wal.is_symlink():
        copy_into_private_file(wal, stage.with_name(stage.name + ".wal"), control)
        open_graph_store(stage, read_only=False).close()  # replays the log into the copy


def import_raw(
    agent: str,
    source: Path,
    store: Path,
    *,
    ticket: GateTicket,
    backup_home: Path,
    control: TaskControl | None = None,
) -> ImportResult:
    """Replace the store with a copy of ``source``; see the module docstring."""
    warnings: list[str] = []
    if source.resolve() == store.resolve():
        raise InvalidInputError(
            f"{source} is the agent's store itself; nothing to import",
            hint="Import from a copy made with memexplorer export --format raw-db.",
        )
    counts = _source_counts(agent, source, warnings)
    bak = store.with_name(store.name + ".bak")
    if source.is_dir():
        if store.exists():
            keep_bak_copy(store, bak, SIDECARS)
        ticket.ensure_unchanged()
        copy_tree(source, store, warnings)
        return ImportResult(agent, "raw-db", source, store, counts, 0, 0, False,
                            bak if bak.exists() else None, warnings)  # fmt: skip
    if store.is_file():
        probe_unlocked(store)
        fold_pending_log(store, ticket)
    folder = stage_folder(store)
    stage = folder / store.name
    backup = None
    try:
        _stage_copy(source, stage, control)
        checkpoint(control, "putting the new store in place")
        if store.is_file():
            backup = backup_before_replace(store, backup_home)
        if store.exists():
            keep_bak_copy(store, bak, SIDECARS)
        if store.is_dir():
            # An older folder-layout store cannot be renamed over by a file: it goes
            # (its .bak holds it) and the file takes its place.
            ticket.ensure_unchanged()
            shutil.rmtree(store)
            ticket.accept_changes()
        put_in_place(stage, store, ticket)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return ImportResult(
        agent, "raw-db", source, store, counts, 0, 0, False,
        bak if bak.exists() else None, warnings, backup,
    )  # fmt: skip
