"""Bringing a JSON export into one agent's hierarchical store (seed 002, "Import").

The import runs inside the store's write gate (:mod:`.write_gate`) from its
first look at the store to its last rename. It builds the new store as a staged
copy in a private folder beside the store and renames it over the store last,
after checking nobody changed the store meanwhile; the old store stays at its
path until then, so a process killed at any point leaves the old data or the new,
never a mix and never no store. A replace import first saves the old store
whole in ``<home>/backups`` (``memexplorer backups`` lists it, ``memexplorer
restore`` puts it back).
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from memexplorer.memory.hierarchical_memory import GraphEngine, HierarchicalMemory
from memexplorer.memory.inspection import SPEC_TABLES
from memexplorer.operator.store_backup import write_closed_store_backup
from memexplorer.operator.transfer_common import SIDECARS
from memexplorer.operator.transfer_files import copy_into_private_file, stage_folder
from memexplorer.operator.write_gate import GateTicket
from memexplorer.storage.atomic_files import PRIVATE_FILE, replace_file
from memexplorer.storage.graph_open import open_graph_store, require_graph_readable
from memexplorer.storage.graph_store import GraphStore, identifier
from memexplorer.storage.private_dirs import enforce_private_store
from memexplorer.storage.progress import TaskControl, checkpoint
from memexplorer.storage.stores import sniff

__all__ = ["fold_pending_log", "import_json_staged"]


def fold_pending_log(store: Path, ticket: GateTicket) -> None:
    """Fold a write-ahead log left by the store's writer into the file, so the
    file alone holds every committed change (opening for writing replays it)."""
    if store.with_name(store.name + ".wal").exists():
        open_graph_store(store, read_only=False).close()
        ticket.accept_changes()


def backup_before_replace(store: Path, home: Path) -> Path:
    """Save the store file whole before a replace import renames a new one over it."""
    engine = sniff(store).engine
    record = write_closed_store_backup(
        home, store, engine=engine, kind="hierarchical", action="import"
    )
    return record.path


def put_in_place(stage: Path, store: Path, ticket: GateTicket) -> None:
    """The one step that changes the store: a synced, private stage renamed over it,
    refused (StoreChangedError) if someone wrote the store meanwhile."""

    def last_check() -> None:
        ticket.ensure_unchanged()
        for suffix in SIDECARS:  # empty after fold_pending_log; a stale one would be replayed
            store.with_name(store.name + suffix).unlink(missing_ok=True)

    replace_file(stage, store, mode=PRIVATE_FILE, before_replace=last_check)
    enforce_private_store(store)


#: Writes the checked file into (graph, agent) and returns the import's counts.
Writer = Callable[[GraphStore, str], dict[str, Any]]


def import_json_staged(
    agent: str,
    store: Path,
    write: Writer,
    *,
    merge: bool,
    control: TaskControl | None,
    engine: GraphEngine,
    ticket: GateTicket,
    backup_home: Path,
    new_stage_pool: int | None = None,
) -> tuple[dict[str, Any], Path | None]:
    """Import into a staged copy of the store, then rename the copy over it.

    Kuzu 0.11 writes COPY data outside its log: a process killed while
    committing an import could keep the deletions and lose the inserts. A copy
    that replaces the store in one rename leaves either the old file or the new
    one. A read-only handle on the store, held throughout, keeps any other
    process from writing to it meanwhile (kuzu refuses a writer while it is open).
    ``write`` puts the file (checked whole by the caller) into the staged copy.
    ``new_stage_pool`` is the buffer pool of a stage that starts as a new, empty
    file (a copy of the store keeps the engine's default: checks against its rows
    may need it); the engine's default pool costs some 40 MB just to open.
    Returns the import's counts and the backup folder of a replaced store.
    """
    folder = stage_folder(store)
    stage = folder / store.name
    holder = None
    backup = None
    pool = new_stage_pool
    try:
        if store.exists():
            require_graph_readable(sniff(store))
            ticket.refuse_upgrade()
            fold_pending_log(store, ticket)
            holder = open_graph_store(store)
            # Replacing the only agent of a store starts from an empty file
            # rather than deleting every row of a copy (kuzu deletes slowly:
            # 111 s against 29 s for 100k facts with their edges).
            if merge or not _holds_only(holder, agent):
                copy_into_private_file(store, stage, control)
                pool = None
        with HierarchicalMemory(
            agent, stage, mode="write", engine=engine, buffer_pool_size=pool
        ) as memory:
            result = write(memory.graph, memory.agent_name)
            checkpoint(control, "saving the new store")
        # Closing checkpointed the copy: it is one self-contained file now.
        checkpoint(control, "putting the new store in place")
        if store.exists() and not merge:
            backup = backup_before_replace(store, backup_home)
        put_in_place(stage, store, ticket)
        return result, backup
    finally:
        if holder is not None:
            holder.close()
        shutil.rmtree(folder, ignore_errors=True)


def _holds_only(graph: GraphStore, agent: str) -> bool:
    """Whether the store is a hierarchical store of ``agent`` alone (spec tables only,
    every node the agent's), so a fresh file can stand in for it."""
    nodes, rels = SPEC_TABLES["hierarchical"]
    if not set(graph.node_tables()) <= set(nodes) or not set(graph.rel_tables()) <= set(rels):
        return False
    for table in graph.node_tables():
        others = graph.scalar(
            f"MATCH (n:{identifier(table)}) WHERE n.agent_id IS NULL OR n.agent_id <> $agent "
            "RETURN count(n)",
            {"agent": agent},
        )
        if others:
            return False
    return True
