"""Redact what an audit found: each secret becomes ``[REDACTED]``, after a backup.

Per store, under the write lock: the flagged values are read again (the store
may have changed since the read-only audit), scrubbed with the same patterns,
and only the rows that really change are saved with :func:`write_backup`
(restore mode "replace", so ``memexplorer restore`` puts the originals back).
Only after the backup exists are the values written, in one transaction.
Rel properties are reported but not redacted: a backup restores edges by
inserting them, which would leave the redacted copy beside the original.
A value stored as base64 of JSON (LadybugDB-era tags, metadata, steps) is
decoded, scrubbed and encoded again, so the library still reads it.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .audit import AuditFinding, FindingLocation, iter_locations
from .backups import BackupRecord, write_backup
from .exceptions import StoreLockedError
from .graph_open import open_graph_store
from .graph_rows import save_nodes
from .graphdb import GraphStore, identifier
from .inspection import detect_kind
from .saved_rows import SavedTable
from .security import CredentialScrubber
from .sqlite_rows import rebuild_fts, save_rows
from .stored_json import encode_base64_json, stored_json_text

__all__ = ["RedactionResult", "redact_findings"]

_SCRUB = CredentialScrubber()
#: Whether the redaction under way takes low-confidence secrets too; a context
#: variable so the scrubbing helpers deep in the row walk need no extra argument.
_INCLUDE_LOW: ContextVar[bool] = ContextVar("include_low", default=True)


@dataclass
class RedactionResult:
    """What changed in one store, and the backup that can undo it."""

    store: Path
    backup: BackupRecord | None
    values: dict[str, int] = field(default_factory=dict)  # table -> values redacted
    not_redacted: list[str] = field(default_factory=list)

    @property
    def changed(self) -> int:
        return sum(self.values.values())

    def to_dict(self) -> dict[str, Any]:
        return {
            "store": str(self.store),
            "backup": str(self.backup.path) if self.backup else None,
            "values": self.values,
            "not_redacted": self.not_redacted,
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
            if not isinstance(value, str) or (scrubbed := _scrubbed(value)) is None:
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


def _scrubbed(value: str) -> str | None:
    """The value with its secrets redacted, or None when it holds none; base64
    of JSON comes back as base64 of JSON, or unchanged when no secret can be
    taken out of it without breaking the JSON."""
    text = stored_json_text(value)
    if text is None:
        scrubbed, changed = _SCRUB.scrub_text(value, include_low=_INCLUDE_LOW.get())
        return scrubbed if changed else None
    scrubbed, changed = _SCRUB.scrub_text(text, include_low=_INCLUDE_LOW.get())
    if not changed:
        return None
    decoded = json.loads(text)
    try:
        kept = _shape(json.loads(scrubbed)) == _shape(decoded)
    except ValueError:
        kept = False
    if not kept:
        # A secret ran across JSON syntax (a quote, a comma): scrub each string instead.
        strings = _scrub_strings(decoded)
        if strings == decoded:
            return value
        scrubbed = json.dumps(strings)
    return encode_base64_json(scrubbed)


def _shape(value: Any) -> Any:
    """A JSON value with every scalar replaced by its type: equal shapes have the
    same keys, lengths and types, whatever their strings say."""
    if isinstance(value, dict):
        return {key: _shape(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_shape(item) for item in value]
    return type(value).__name__


def _scrub_strings(value: Any) -> Any:
    """A JSON value with the secrets in each of its strings (keys too) redacted."""
    if isinstance(value, str):
        return _SCRUB.scrub_text(value, include_low=_INCLUDE_LOW.get())[0]
    if isinstance(value, list):
        return [_scrub_strings(item) for item in value]
    if isinstance(value, dict):
        return {_scrub_strings(k): _scrub_strings(v) for k, v in value.items()}
    return value


def _graph_kind(graph: GraphStore) -> str:
    tables = graph.node_tables()
    columns = {t: {name for name, _ in graph.columns(t)} for t in tables}
    return detect_kind(set(tables) | set(graph.rel_tables()), columns)


def _redact_graph(path: Path, locations: list[FindingLocation], home: Path) -> RedactionResult:
    result = RedactionResult(path, None)
    nodes = [where for where in locations if where.rel_ends is None]
    for where in locations:
        if where.rel_ends is not None:
            result.not_redacted.append(f"{where.table}.{where.column} (an edge property)")
    with open_graph_store(path, read_only=False) as graph:
        backups: list[SavedTable] = []
        plans = []
        for table, wanted in _by_table(nodes).items():
            saved = save_nodes(graph, table, [values[0] for values in wanted])
            kept, changes = _changes(saved, wanted, result.not_redacted)
            if changes:
                backups.append(kept)
                plans.append((table, saved.key[0], changes))
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


def _sqlite_kind(connection: sqlite3.Connection) -> str:
    names = {r[0] for r in connection.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    return "experience" if "experiences" in names else "flat" if "memory_entries" in names else ""


def _redact_sqlite(path: Path, locations: list[FindingLocation], home: Path) -> RedactionResult:
    result = RedactionResult(path, None)
    connection = sqlite3.connect(path, timeout=2.0, isolation_level=None)
    try:
        # Overwritten and freed content is zeroed instead of left in free pages.
        connection.execute("PRAGMA secure_delete = ON")
        try:
            connection.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as exc:
            raise StoreLockedError(path, f"Another process is writing this store ({exc})") from None
        try:
            _redact_sqlite_rows(connection, path, locations, home, result)
        except BaseException:
            connection.execute("ROLLBACK")
            raise
        connection.execute("COMMIT")
    finally:
        connection.close()
    return result


def _redact_sqlite_rows(
    connection: sqlite3.Connection,
    path: Path,
    locations: list[FindingLocation],
    home: Path,
    result: RedactionResult,
) -> None:
    backups: list[SavedTable] = []
    plans = []
    for table, wanted in _by_table(locations).items():
        key_names = next(
            [name for name, _ in where.key] for where in locations if where.table == table
        )
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
        where = " AND ".join(f"{identifier(k) if k != 'rowid' else 'rowid'} = ?" for k in key_names)
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
    stay as they are, even in a value that also holds a high-confidence one."""
    home = Path(home).expanduser()
    results = []
    token = _INCLUDE_LOW.set(include_low)
    try:
        for path, locations in _by_store(findings).items():
            if locations[0].engine == "sqlite":
                results.append(_redact_sqlite(path, locations, home))
            else:
                results.append(_redact_graph(path, locations, home))
    finally:
        _INCLUDE_LOW.reset(token)
    return results
