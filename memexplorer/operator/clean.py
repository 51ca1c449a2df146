"""Clean: selection, preview, then (after a backup) deletion, for every store kind.

:func:`preview_clean` opens the store read-only and says what a selection
matches: rows per table, the edges that go with the nodes, a sample.
:func:`clean_store` enters the store's write gate (:mod:`.write_gate`: a second
memexplorer writer is refused, naming this one), opens the store for writing,
plans again under the write lock, writes a backup of exactly those rows and
edges, and only then deletes them in one transaction. If the backup fails
nothing is deleted.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from memexplorer.memory.inspection import detect_kind
from memexplorer.memory.rs_sqlite_schema import is_rs_hierarchical
from memexplorer.operator.backup_records import BackupRecord
from memexplorer.operator.backups import write_backup
from memexplorer.operator.clean_graph import delete_graph_plan, plan_graph, save_graph_plan
from memexplorer.operator.clean_plan import SAMPLE_SIZE, Plan
from memexplorer.operator.clean_selection import Selection
from memexplorer.operator.clean_sqlite import delete_sqlite_plan, plan_sqlite, save_sqlite_plan
from memexplorer.operator.saved_rows import SavedTable
from memexplorer.operator.write_gate import write_gate
from memexplorer.storage.backend_choice import parse_backend, resolve_backend
from memexplorer.storage.collector import collector_paused
from memexplorer.storage.exceptions import InvalidInputError
from memexplorer.storage.graph_open import open_graph_store, require_graph_readable
from memexplorer.storage.graphdb import GraphStore
from memexplorer.storage.sqlite_db import SqliteConnection, sqlite_tables
from memexplorer.storage.sqlite_readonly import open_sqlite_readonly
from memexplorer.storage.sqlite_writer import sqlite_writer
from memexplorer.storage.stores import resolve_hierarchical_path, sniff
from memexplorer.storage.writer_log import unreplayable_log

__all__ = [
    "CleanPreview",
    "CleanResult",
    "CleanTarget",
    "clean_store",
    "clean_target",
    "preview_clean",
]

Engine = Literal["kuzu", "sqlite"]
_CLEANABLE = ("hierarchical", "cognitive", "experience", "flat")


@dataclass(frozen=True)
class CleanTarget:
    """The store a clean works on, and how it was chosen."""

    path: Path
    engine: Engine
    reason: str = ""
    warnings: tuple[str, ...] = ()


@dataclass(frozen=True)
class CleanPreview:
    """What a selection matches in one store."""

    store: Path
    kind: str
    engine: str
    selection: Selection
    counts: dict[str, int]
    edges: dict[str, int]
    agents: list[str]
    sample: list[dict[str, Any]] = field(default_factory=list)

    @property
    def rows(self) -> int:
        return sum(self.counts.values())

    @property
    def edge_count(self) -> int:
        return sum(self.edges.values())

    def to_dict(self) -> dict[str, Any]:
        return {
            "store": str(self.store),
            "kind": self.kind,
            "engine": self.engine,
            "selection": self.selection.to_dict(),
            "counts": self.counts,
            "edges": self.edges,
            "rows": self.rows,
            "edge_count": self.edge_count,
            "agents": self.agents,
            "sample": self.sample,
        }


@dataclass(frozen=True)
class CleanResult:
    """What a clean removed, and the backup that can bring it back."""

    preview: CleanPreview
    backup: BackupRecord | None

    def to_dict(self) -> dict[str, Any]:
        return {
            **self.preview.to_dict(),
            "deleted": self.preview.rows > 0,
            "backup": str(self.backup.path) if self.backup else None,
        }


def clean_target(
    store: str | Path | None = None,
    *,
    backend: str | None = None,
    home: str | Path | None = None,
) -> CleanTarget:
    """The store named by ``store`` (any kind), else the flat store the backend
    choice names (``--backend`` > AMPLIHACK_MEMORY_BACKEND > auto-detect)."""
    if store is not None:
        path = resolve_hierarchical_path(Path(store).expanduser())
        if path.is_symlink():
            raise InvalidInputError(
                f"The store is a symbolic link, which clean does not follow: {path}",
                hint=f"Name the real file: {os.path.realpath(path)}",
            )
        fmt = sniff(path)
        engine: Engine = "sqlite" if fmt.engine == "sqlite" else "kuzu"
        notes = []
        if fmt.engine != "sqlite":
            require_graph_readable(fmt)
            if (left := unreplayable_log(fmt)) is not None:
                notes.append(f"{left.story}; {left.note}; it cannot be cleaned")
        if backend is not None:
            wanted = parse_backend(backend)
            if (wanted == "sqlite") != (engine == "sqlite"):
                raise InvalidInputError(
                    f"--backend {backend} does not match the store, which is {fmt.label}: {path}",
                    hint="Leave out --backend when naming the store with --store.",
                )
        return CleanTarget(fmt.path, engine, "--store", tuple(notes))
    resolution = resolve_backend(backend, home=home)
    path = resolution.path
    fmt = sniff(path)
    if resolution.backend == "graph-db":
        require_graph_readable(fmt)
    engine = "sqlite" if resolution.backend == "sqlite" else "kuzu"
    if (fmt.engine == "sqlite") != (engine == "sqlite"):
        raise InvalidInputError(f"{path} is {fmt.label}, not a {resolution.backend} flat store")
    return CleanTarget(
        path, engine, f"{resolution.source}: {resolution.reason}", resolution.warnings
    )


def _graph_kind(graph: GraphStore) -> str:
    nodes, rels = graph.node_tables(), graph.rel_tables()
    columns = {t: {c for c, _ in graph.columns(t)} for t in nodes}
    return detect_kind(set(nodes) | set(rels), columns)


def _sqlite_kind(db: SqliteConnection) -> str:
    names = sqlite_tables(db)
    if is_rs_hierarchical(names):
        return "hierarchical"
    if "experiences" in names:
        return "experience"
    if {"memory_entries", "sessions", "session_agents"} <= names:
        return "flat"
    return "unknown"


def _require_cleanable(path: Path, kind: str) -> None:
    if kind not in _CLEANABLE:
        raise InvalidInputError(
            f"clean does not know this store's schema ({kind}): {path}",
            hint="clean works on hierarchical, cognitive, experience and flat memory stores.",
        )


def _preview(target: CleanTarget, kind: str, selection: Selection, plan: Plan) -> CleanPreview:
    return CleanPreview(
        store=target.path,
        kind=kind,
        engine=target.engine,
        selection=selection,
        counts=dict(plan.counts),
        edges=dict(plan.edges),
        agents=sorted(a for a in plan.agents if a is not None),
        sample=plan.sample,
    )


def preview_clean(
    target: CleanTarget, selection: Selection, *, sample_size: int = SAMPLE_SIZE
) -> CleanPreview:
    """What ``selection`` matches in the store, read-only (nothing is changed)."""
    with collector_paused():  # 100k rows and their edges: no stop-the-world scans
        return _planned_preview(target, selection, sample_size)


def _planned_preview(target: CleanTarget, selection: Selection, sample_size: int) -> CleanPreview:
    now = datetime.now(UTC)
    if target.engine == "sqlite":
        db = open_sqlite_readonly(target.path)
        try:
            kind = _sqlite_kind(db)
            _require_cleanable(target.path, kind)
            plan = plan_sqlite(db, kind, selection, now, sample_size)
        finally:
            db.close()
        return _preview(target, kind, selection, plan)
    with open_graph_store(target.path, read_only=True) as graph:
        kind = _graph_kind(graph)
        _require_cleanable(target.path, kind)
        plan = plan_graph(graph, kind, selection, now, sample_size)
    return _preview(target, kind, selection, plan)


def clean_store(
    target: CleanTarget,
    selection: Selection,
    *,
    home: str | Path,
    sample_size: int = SAMPLE_SIZE,
) -> CleanResult:
    """Back up, then delete, what ``selection`` matches; nothing is deleted
    unless the backup under ``<home>/backups`` was written whole.

    Raises StoreBusyError (another memexplorer writer holds the store) or
    WritesDisabledError (MEMEXPLORER_READ_ONLY=1) before anything is read."""
    with write_gate(target.path, action="clean"):
        return _clean_store(target, selection, Path(home), sample_size)


def _carry_out(
    home: Path,
    info: dict[str, Any],
    kind: str,
    plan: Plan,
    store: Any,
    save: Callable[[Any, Plan], list[SavedTable]],
    delete: Callable[[Any, Plan], None],
) -> BackupRecord | None:
    """Back the planned rows of ``store`` (its open connection or graph) up, then
    delete them; nothing when nothing is planned."""
    if not plan.rows:
        return None
    backup = write_backup(
        home, action="clean", kind=kind, agents=plan.agents, tables=save(store, plan), **info
    )
    delete(store, plan)
    return backup


def _clean_store(
    target: CleanTarget, selection: Selection, home: Path, sample_size: int
) -> CleanResult:
    now = datetime.now(UTC)
    info = {"store": target.path, "engine": target.engine, "selection": selection.to_dict()}
    if target.engine == "sqlite":
        with sqlite_writer(target.path) as db:
            kind = _sqlite_kind(db)
            _require_cleanable(target.path, kind)
            plan = plan_sqlite(db, kind, selection, now, sample_size)
            backup = _carry_out(home, info, kind, plan, db, save_sqlite_plan, delete_sqlite_plan)
        return CleanResult(_preview(target, kind, selection, plan), backup)
    with open_graph_store(target.path, read_only=False) as graph:
        kind = _graph_kind(graph)
        _require_cleanable(target.path, kind)
        plan = plan_graph(graph, kind, selection, now, sample_size)
        backup = _carry_out(home, info, kind, plan, graph, save_graph_plan, delete_graph_plan)
    return CleanResult(_preview(target, kind, selection, plan), backup)
