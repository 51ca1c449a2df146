"""Merge a group of duplicate facts: preview, then (after a backup) the write.

:func:`preview_merge` reads the store read-only and plans the merge
(:mod:`.merge_plan`). :func:`merge_facts` enters the store's write gate, opens
it for writing, plans again under the lock and refuses if the plan is not the
previewed one, writes a backup of every fact the merge touches (restore mode
``merge``: undo deletes the added edges and puts the facts' values back,
:mod:`.merge_undo`), and only then writes, in one transaction.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memexplorer.memory.rs_sqlite_schema import SEMANTIC_TABLE
from memexplorer.operator.backup_records import BackupRecord
from memexplorer.operator.backups import write_backup
from memexplorer.operator.graph_rows import save_nodes
from memexplorer.operator.merge_plan import MergePlan, plan_merge
from memexplorer.operator.merge_store import (
    merge_store_path,
    read_facts,
    read_graph_facts,
    read_sqlite_facts,
)
from memexplorer.operator.merge_write import sqlite_sequence, write_graph_plan, write_sqlite_plan
from memexplorer.operator.sqlite_rows import save_rows
from memexplorer.operator.write_gate import write_gate
from memexplorer.storage.exceptions import StoreChangedError
from memexplorer.storage.graph_open import open_graph_store
from memexplorer.storage.sqlite_writer import sqlite_writer

__all__ = ["MERGE_ACTION", "MergeResult", "merge_facts", "preview_merge"]

#: The backup action (and gate action) of a merge.
MERGE_ACTION = "merge"


@dataclass(frozen=True)
class MergeResult:
    """What a merge wrote, and the backup that undoes it."""

    plan: MergePlan
    backup: BackupRecord

    def to_dict(self) -> dict[str, Any]:
        return {**self.plan.to_dict(), "merged": True, "backup": str(self.backup.path)}


def preview_merge(store: str | Path, agent: str, keep: str, others: list[str]) -> MergePlan:
    """What merging ``others`` into ``keep`` would write; nothing is changed."""
    path = merge_store_path(store)
    return plan_merge(read_facts(path, agent), keep, others)


def _same(plan: MergePlan, again: MergePlan) -> None:
    if again != plan:
        raise StoreChangedError(
            plan.store,
            "The facts to merge changed since the preview (another writer, probably the "
            "agent), so nothing was merged",
            hint="Look at the group again and merge it from a new preview.",
        )


def _record(plan: MergePlan, sequence: int | None = None) -> dict[str, Any]:
    """What undo needs, kept in the backup's manifest."""
    record = plan.to_dict()
    if plan.engine == "sqlite":
        record["sqlite_sequence"] = sequence
    return {"merge": record}


def merge_facts(plan: MergePlan, *, home: str | Path) -> MergeResult:
    """Write ``plan`` (from :func:`preview_merge`) after a backup under ``<home>/backups``.

    Raises StoreBusyError, WritesDisabledError or LegacyStoreError at the gate,
    StoreChangedError when the facts changed since the preview; then nothing is
    written."""
    with write_gate(plan.store, action=MERGE_ACTION) as ticket:
        ticket.refuse_upgrade()
        if plan.engine == "sqlite":
            return _merge_sqlite(plan, Path(home))
        return _merge_graph(plan, Path(home))


def _backup(plan: MergePlan, home: Path, tables: list[Any], record: dict[str, Any]) -> Any:
    return write_backup(
        home, action=MERGE_ACTION, store=plan.store, kind="hierarchical", engine=plan.engine,
        tables=tables, agents=[plan.agent], selection=record, restore_mode="merge",
    )  # fmt: skip


def _merge_graph(plan: MergePlan, home: Path) -> MergeResult:
    with open_graph_store(plan.store, read_only=False) as graph:
        read = read_graph_facts(graph, plan.store, plan.engine, plan.agent)
        _same(plan, plan_merge(read, plan.keep.memory_id, _ids(plan)))
        saved = save_nodes(graph, "SemanticMemory", plan.memory_ids)
        backup = _backup(plan, home, [saved], _record(plan))
        with _dropped_on_failure(backup), graph.transaction():
            write_graph_plan(graph, plan)
    return MergeResult(plan, backup)


def _merge_sqlite(plan: MergePlan, home: Path) -> MergeResult:
    with sqlite_writer(plan.store) as connection:
        read = read_sqlite_facts(connection, plan.store, plan.agent)
        _same(plan, plan_merge(read, plan.keep.memory_id, _ids(plan)))
        saved = save_rows(connection, SEMANTIC_TABLE, "memory_id", plan.memory_ids)
        record = _record(plan, sqlite_sequence(connection, "SUPERSEDES"))
        backup = _backup(plan, home, [saved], record)
        with _dropped_on_failure(backup):
            write_sqlite_plan(connection, plan)
    return MergeResult(plan, backup)


@contextmanager
def _dropped_on_failure(backup: BackupRecord) -> Iterator[None]:
    """A write that failed (and rolled back) leaves no backup that undo would refuse."""
    try:
        yield
    except BaseException:
        shutil.rmtree(backup.path, ignore_errors=True)
        raise


def _ids(plan: MergePlan) -> list[str]:
    return [fact.memory_id for fact in plan.others]
