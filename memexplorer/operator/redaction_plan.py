"""What a redaction changes: its result per store, the findings grouped by store and
table, and the saved rows whose flagged values scrubbing really changes (only
those are backed up and written).
"""

from __future__ import annotations

import shlex
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memexplorer.operator.audit import AuditFinding, FindingLocation, iter_locations
from memexplorer.operator.backup_records import BackupRecord
from memexplorer.operator.compaction import CompactionResult
from memexplorer.operator.redaction_values import scrubbed_value
from memexplorer.operator.saved_rows import SavedTable

__all__ = [
    "SQLITE_ENGINES",
    "RedactionResult",
    "agents_of",
    "by_store",
    "by_table",
    "delete_backup_command",
    "planned_changes",
]

#: The finding locations' engine that names a SQLite store (others are graph engines).
SQLITE_ENGINES = frozenset({"sqlite"})


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


def by_store(findings: Iterable[AuditFinding]) -> dict[Path, list[FindingLocation]]:
    grouped: dict[Path, list[FindingLocation]] = {}
    for location in iter_locations(findings):
        grouped.setdefault(location.path, []).append(location)
    return grouped


def by_table(locations: list[FindingLocation]) -> dict[str, dict[tuple, set[str]]]:
    """table -> row key values -> flagged columns."""
    tables: dict[str, dict[tuple, set[str]]] = {}
    for where in locations:
        values = tuple(value for _, value in where.key)
        tables.setdefault(where.table, {}).setdefault(values, set()).add(where.column)
    return tables


def planned_changes(
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


def agents_of(tables: list[SavedTable]) -> list[str]:
    return sorted(
        {
            str(row[column])
            for table in tables
            for row in table.rows
            for column in ("agent_id", "agent_name")
            if row.get(column)
        }
    )


def delete_backup_command(backup: BackupRecord) -> str:
    """The shell command that deletes a backup, whose rows still hold the old values."""
    return f"rm -r -- {shlex.quote(str(backup.path))}"
