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
"""

from __future__ import annotations

import shlex
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memexplorer.memory.inspection import detect_kind
from memexplorer.memory.rs_sqlite_schema import is_rs_hierarchical
from memexplorer.operator.audit import AuditFinding, FindingLocation, iter_locations
from memexplorer.operator.backups import BackupRecord, write_backup
from memexplorer.operator.compaction import CompactionResult
from memexplorer.operator.graph_rows import save_nodes
from memexplorer.operator.redaction_values import INCLUDE_LOW, scrubbed_value
from memexplorer.operator.saved_rows import SavedTable
from memexplorer.operator.sqlite_rows import rebuild_fts, save_rows
from memexplorer.operator.store_compaction import compact_store
from memexplorer.operator.write_gate import write_gate
from memexplorer.storage.exceptions import CompactionError, MemoryError
from memexplorer.storage.graph_open import open_graph_store
from memexplorer.storage.graphdb import GraphStore, identifier
from memexplorer.storage.sqlite_db import (
    SqliteConnection,
    open_sqlite_autocommit,
)
from memexplorer.storage.sqlite_writer import another_writer, immediate_transaction

__all__ = ["RedactionResult", "delete_backup_command", "redact_findings"]

#: The finding locations' engine that names a SQLite store (others are graph engines).
_SQLITE_ENGINES = frozenset({"sqlite"})


@dataclass
class RedactionResult:
    """What changed in one store, and the backup that can undo it."""

    store: Path
    backup: BackupRecord | None
    values: dict[str, int] = field(default_factory=dict)  # table -> values redacted
    not_redacted: list[str] = field(default_factory=list)
    #: The rewrite that took the old values out of a graph store's bytes.
    compaction: CompactionResult | None = None
    #: Why the rewrite was refused (the values are redacted, the old bytes remain).
    not_compacted: str | None = None
    #: Why nothing was redacted in this store (another store's redaction went on).
    refused: str | None = None

    @property
    def changed(self) -> int:
        return sum(self.values.values())

    def to_dict(self) -> dict[str, Any]:
        return {
            "store": str(self.store),
            "backup": str(self.backup.path) if self.backup else None,
            "values": self.values,
            "not_redacted": self.not_redacted,
            "compacted": self.compaction.to_dict() if self.compaction else None,
            "not_compacted": self.not_compacted,
            "refused": self.refused,
            "backup_holds_old_values": self.backup is not None,
            "delete_backup": delete_backup_command(self.backup) if self.backup else None,
        }


def _by_store(findings: Iterable[AuditFinding]) -> dict[Path, list[FindingLocation]]:
    grouped: dict[Path, list[FindingLocation]] = {}
    for location in iter_locations(findings):
        grouped.setdefault(location.path, []).append(location)
    return grouped


def _by_table(locations: list[FindingLocation]) -> dict[str, dict[tuple, set[str]]]:
    """table -> row key values -> flagged columns."""
    tables: dict[str, dict[tuple, set[str]]] = {}
    for where in locations:
        values = tuple(value for _, value in where.key)
        tables.setdefault(where.table, {}).setdefault(values, set()).add(where.column)
    return tables


def _changes(
    saved: SavedTable, wanted: dict[tuple, set[str]], skipped: list[str]
) -> tuple[SavedTable, list[tuple[dict[str, Any], dict[str, str]]]]:
    """The saved rows that will change, and for each its new column values;
    values that cannot be scrubbed and stay JSON are named in ``skipped``."""
    kept = SavedTable(saved.name, saved.kind, saved.columns, key=saved.key)
    changes = []
    for row in saved.rows:
        columns = wanted.get(tuple(row.get(k) for k in saved.key))
        if not columns:
            continue
        new = {}
        for column in sorted(columns):
            value = row.get(column)
            if not isinstance(value, str) or (scrubbed := scrubbed_value(value)) is None:
                continue
            if scrubbed == value:
                key = "/".join(str(row.get(k)) for k in saved.key)
                skipped.append(f"{saved.name}.{column} of {key} (a secret across JSON fields)")
            else:
                new[column] = scrubbed
        if new:
            kept.rows.append(row)
            changes.append((row, new))
    return kept, changes


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
    for table, wanted in _by_table(nodes).items():
        saved = save_nodes(graph, table, [key for (key,) in wanted])  # one key each
        kept, changes = _changes(saved, wanted, skipped)
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
            tables=backups, agents=_agents(backups), selection={"audit": "redact"},
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


def _agents(tables: list[SavedTable]) -> list[str]:
    return sorted(
        {
            str(row[column])
            for table in tables
            for row in table.rows
            for column in ("agent_id", "agent_name")
            if row.get(column)
        }
    )


def _sqlite_kind(connection: SqliteConnection) -> str:
    names = {
        name for (name,) in connection.execute("SELECT name FROM sqlite_master WHERE type='table'")
    }
    if is_rs_hierarchical(names):
        return "hierarchical"
    return "experience" if "experiences" in names else "flat" if "memory_entries" in names else ""


def _redact_sqlite(path: Path, locations: list[FindingLocation], home: Path) -> RedactionResult:
    result = RedactionResult(path, None)
    connection = open_sqlite_autocommit(path)
    try:
        # Overwritten and freed content is zeroed instead of left in free pages.
        connection.execute("PRAGMA secure_delete = ON")
        with immediate_transaction(connection, another_writer(path)):
            _redact_sqlite_rows(connection, path, locations, home, result)
    finally:
        connection.close()
    return result


def _redact_sqlite_rows(
    connection: SqliteConnection,
    path: Path,
    locations: list[FindingLocation],
    home: Path,
    result: RedactionResult,
) -> None:
    backups: list[SavedTable] = []
    plans = []
    key_names_of = {where.table: [name for name, _ in where.key] for where in locations}
    for table, wanted in _by_table(locations).items():
        key_names = key_names_of[table]
        saved = save_rows(connection, table, key_names[0], [values[0] for values in wanted])
        saved.key = key_names
        kept, changes = _changes(saved, wanted, result.not_redacted)
        if changes:
            backups.append(kept)
            plans.append((table, key_names, changes))
    if not plans:
        return
    result.backup = write_backup(
        home, action="redact", store=path, kind=_sqlite_kind(connection), engine="sqlite",
        tables=backups, agents=_agents(backups), selection={"audit": "redact"},
        restore_mode="replace",
    )  # fmt: skip
    for table, key_names, changes in plans:
        # A quoted `rowid` is still the rowid (or the column of that name, as bare).
        where = " AND ".join(f"{identifier(k)} = ?" for k in key_names)
        for row, new in changes:
            sets = ", ".join(f"{identifier(column)} = ?" for column in new)
            connection.execute(
                f"UPDATE {identifier(table)} SET {sets} WHERE {where}",
                [*new.values(), *(row[k] for k in key_names)],
            )
        result.values[table] = len(changes)
    rebuild_fts(connection, [table for table, _, _ in plans])


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
    stores = _by_store(findings)
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
        if any(where.engine in _SQLITE_ENGINES for where in locations):  # one engine
            return _redact_sqlite(path, locations, home)
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


def delete_backup_command(backup: BackupRecord) -> str:
    """The shell command that deletes a backup, whose rows still hold the old values."""
    return f"rm -r -- {shlex.quote(str(backup.path))}"
