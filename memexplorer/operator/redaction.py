"""Redact what an audit found: each secret becomes ``[REDACTED]``, after a backup.

Per store, inside its write gate (:mod:`.write_gate`: the inter-process lock,
held until the store is rewritten; refused under MEMEXPLORER_READ_ONLY=1), and
under the engine's own write lock: the flagged values are read again (the store
may have changed since the read-only audit), scrubbed with the same patterns,
and only the rows that really change are saved with :func:`write_backup`
(restore mode "replace", so ``memexplorer restore`` puts the originals back).
Only after the backup exists are the values written, in one transaction.
Rel properties are reported but not redacted: a backup restores edges by
inserting them, which would leave the redacted copy beside the original.
A value stored as base64 of JSON (LadybugDB-era tags, metadata, steps) is
decoded, scrubbed and encoded again, so the library still reads it.

A graph engine leaves an overwritten value in the file's old pages, so a
graph store that changed is then compacted (:mod:`.compaction`): rewritten
into a fresh file holding the same rows, without the old bytes. SQLite
stores are written with ``secure_delete``, which zeroes them in place. The
backup still holds the old values; the result says how to delete it.

This module redacts graph stores and runs the whole; what changes is
:mod:`.redaction_plan`'s, SQLite stores :mod:`.redaction_sqlite`'s.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from memexplorer.memory.inspection import detect_kind
from memexplorer.operator.audit import AuditFinding, FindingLocation
from memexplorer.operator.backups import write_backup
from memexplorer.operator.graph_rows import save_nodes
from memexplorer.operator.redaction_plan import (
    SQLITE_ENGINES,
    RedactionResult,
    agents_of,
    by_store,
    by_table,
    delete_backup_command,
    planned_changes,
)
from memexplorer.operator.redaction_sqlite import redact_sqlite
from memexplorer.operator.redaction_values import INCLUDE_LOW
from memexplorer.operator.saved_rows import SavedTable
from memexplorer.operator.store_compaction import compact_store
from memexplorer.operator.write_gate import write_gate
from memexplorer.storage.exceptions import CompactionError, MemoryError
from memexplorer.storage.graph_open import open_graph_store
from memexplorer.storage.graphdb import GraphStore, identifier

__all__ = ["RedactionResult", "delete_backup_command", "redact_findings"]


def _graph_kind(graph: GraphStore) -> str:
    tables = graph.node_tables()
    columns = {t: {name for name, _ in graph.columns(t)} for t in tables}
    return detect_kind(set(tables), columns)  # node tables name the kind


def _graph_plans(
    graph: GraphStore, nodes: list[FindingLocation], skipped: list[str]
) -> tuple[list[SavedTable], list[tuple[str, str, list]]]:
    """The rows to back up and, per table, the values to set."""
    backups: list[SavedTable] = []
    plans = []
    for table, wanted in by_table(nodes).items():
        saved = save_nodes(graph, table, [key for (key,) in wanted])  # one key each
        kept, changes = planned_changes(saved, wanted, skipped)
        if changes:
            backups.append(kept)
            [key] = saved.key  # a graph node table has one primary key
            plans.append((table, key, changes))
    return backups, plans


def _redact_graph(path: Path, locations: list[FindingLocation], home: Path) -> RedactionResult:
    result = RedactionResult(path, None)
    nodes = [where for where in locations if where.rel_ends is None]
    for where in locations:
        if where.rel_ends is not None:
            result.not_redacted.append(f"{where.table}.{where.column} (an edge property)")
    # Read-only first: an engine opened for writing may rewrite its header on close,
    # so a store with nothing left to redact is not opened for writing at all.
    skipped: list[str] = []
    with open_graph_store(path) as graph:
        _, plans = _graph_plans(graph, nodes, skipped)
    if not plans:
        result.not_redacted += skipped
        return result
    with open_graph_store(path, read_only=False) as graph:
        skipped = []
        backups, plans = _graph_plans(graph, nodes, skipped)
        result.not_redacted += skipped
        if not plans:
            return result
        result.backup = write_backup(
            home, action="redact", store=path, kind=_graph_kind(graph), engine=graph.engine,
            tables=backups, agents=agents_of(backups), selection={"audit": "redact"},
            restore_mode="replace",
        )  # fmt: skip
        with graph.transaction():
            for table, key, changes in plans:
                for row, new in changes:
                    sets = ", ".join(f"n.{identifier(c)} = $v{i}" for i, c in enumerate(new))
                    graph.execute(
                        f"MATCH (n:{identifier(table)} {{{identifier(key)}: $k}}) SET {sets}",
                        {"k": row[key], **{f"v{i}": v for i, v in enumerate(new.values())}},
                    )
                result.values[table] = len(changes)
    return result


def redact_findings(
    findings: Iterable[AuditFinding], *, home: str | Path, include_low: bool = True
) -> list[RedactionResult]:
    """Replace every finding's secret with ``[REDACTED]``, store by store, each after
    a backup under ``<home>/backups``; a store whose backup fails is not changed.
    Without ``include_low`` a value's low-confidence secrets (a keyword in prose)
    stay as they are, even in a value that also holds a high-confidence one.

    With one store, its refusal (locked, busy, a log left unreplayed) is raised;
    with several, a refused store is reported in its result (``refused``) and the
    others are still redacted, so no store's outcome goes unreported."""
    home = Path(home).expanduser()
    stores = by_store(findings)
    results = []
    token = INCLUDE_LOW.set(include_low)
    try:
        for path, locations in stores.items():
            try:
                results.append(_redact_store(path, locations, home))
            except MemoryError as exc:
                if len(stores) < 2:
                    raise
                results.append(RedactionResult(path, None, refused=f"{exc.title}: {exc.message}"))
    finally:
        INCLUDE_LOW.reset(token)
    return results


def _redact_store(path: Path, locations: list[FindingLocation], home: Path) -> RedactionResult:
    with write_gate(path, action="redact") as ticket:
        if any(where.engine in SQLITE_ENGINES for where in locations):  # one engine
            return redact_sqlite(path, locations, home)
        result = _redact_graph(path, locations, home)
        if result.changed:
            # The engine leaves overwritten values in the file's pages: rewrite it,
            # still under the lock (the redaction's own change is accepted first).
            ticket.accept_changes()
            try:
                result.compaction = compact_store(path, ticket=ticket)
            except CompactionError as exc:
                result.not_compacted = exc.describe()
        return result
