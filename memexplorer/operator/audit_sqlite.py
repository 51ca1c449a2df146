"""The credential audit of an SQLite store: every text value of every ordinary
table (FTS copies left out), each row named by its key; in amplihack-rs's
hierarchical store an edge's agent is its source fact's.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from memexplorer.memory.rs_sqlite_schema import edge_owner_sql, is_rs_hierarchical
from memexplorer.operator.audit_findings import (
    Collector,
    FindingLocation,
    candidate_needles,
)
from memexplorer.storage.graph_counts import agent_column
from memexplorer.storage.graphdb import identifier
from memexplorer.storage.sqlite_db import SqliteConnection, SqliteStatementError

__all__ = ["scan_sqlite"]


def _sqlite_tables(connection: SqliteConnection) -> list[str]:
    """Ordinary tables; virtual tables (FTS) and their shadow tables are copies
    or indexes of ordinary ones, so scanning them would report a secret twice."""
    rows = connection.execute("SELECT name, sql FROM sqlite_master WHERE type = 'table'").fetchall()
    virtual = [name for name, sql in rows if (sql or "").upper().startswith("CREATE VIRTUAL")]
    return [
        name
        for name, _ in rows
        if not name.startswith("sqlite_")
        and name not in virtual
        and not any(name.startswith(f"{v}_") for v in virtual)
    ]


def _sqlite_key(connection: SqliteConnection, table: str) -> list[str]:
    info = connection.execute(f"PRAGMA table_info({identifier(table)})").fetchall()
    primary = [row[1] for row in sorted(info, key=lambda r: r[5]) if row[5]]
    if len(primary) == 1:
        return primary
    try:
        connection.execute(f"SELECT rowid FROM {identifier(table)} LIMIT 0")
    except SqliteStatementError:
        return primary  # WITHOUT ROWID: the composite key names the row
    return ["rowid"]


def _sqlite_candidates(column: str, needles: tuple[str, ...] | None) -> str:
    value = identifier(column)
    if needles is None:
        return f"typeof({value}) = 'text'"
    tests = " OR ".join(f"instr(lower({value}), :n{i}) > 0" for i in range(len(needles)))
    # BASE64_JSON_REGEX without a regex function: SQLite has only GLOB.
    encoded = (
        f"(length({value}) % 4 = 0 AND substr({value}, 1, 1) IN ('e', 'W', 'I') "
        f"AND {value} NOT GLOB '*[^A-Za-z0-9+/=]*')"
    )
    return f"typeof({value}) = 'text' AND ({tests} OR {encoded})"


def _sqlite_params(needles: tuple[str, ...] | None) -> dict[str, Any]:
    return {f"n{i}": needle for i, needle in enumerate(needles or ())}


def _sqlite_owner(table: str, names: list[str], rust: bool) -> str | None:
    """The SQL naming a row's agent: its agent column, or in amplihack-rs's store
    the agent of an edge's source fact; None for rows of no agent."""
    column = agent_column(names)
    if column is not None:
        return identifier(column)
    return edge_owner_sql(table) if rust else None


def scan_sqlite(connection: SqliteConnection, path: Path, collector: Collector) -> None:
    needles = candidate_needles()
    agent = collector.agent
    tables = _sqlite_tables(connection)
    rust = is_rs_hierarchical(tables)
    for table in tables:
        info = connection.execute(f"PRAGMA table_info({identifier(table)})").fetchall()
        names = [row[1] for row in info]
        owner = _sqlite_owner(table, names, rust)
        if agent is not None and owner is None:
            continue
        key = _sqlite_key(connection, table)
        scope = f"{owner} = :agent AND " if agent is not None and owner else ""
        owner_value = owner or "''"
        selected = ", ".join(identifier(k) if k != "rowid" else "rowid" for k in key)
        for column in names:
            rows = connection.execute(
                f"""SELECT {owner_value}, {identifier(column)}, {selected}
                    FROM {identifier(table)}
                    WHERE {scope}{_sqlite_candidates(column, needles)}""",
                {**_sqlite_params(needles), **({"agent": agent} if scope else {})},
            )
            where = FindingLocation(path, "sqlite", table, column, ())
            collector.add(
                where,
                (
                    (
                        tuple(zip(key, r[2:], strict=True)),
                        "/".join(str(v) for v in r[2:]),
                        r[0],
                        r[1],
                    )
                    for r in rows
                ),
            )
