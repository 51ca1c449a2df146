"""Save, delete and write back whole rows of SQLite tables (experience and flat stores).

Rows keep their ``rowid`` where the table has one, so full-text indexes that
point at rows by rowid stay right after a restore. FTS5 tables that index a
changed table through ``content=`` are rebuilt after each change: the
reference library's delete trigger runs after the row is gone and cannot
remove its index entries, which would otherwise point at missing rows.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Iterable, Iterator
from typing import Any

from memexplorer.operator.saved_rows import SavedTable
from memexplorer.storage.graphdb import identifier
from memexplorer.storage.sqlite_db import SqliteConnection, SqliteStatementError

__all__ = [
    "delete_rows",
    "dump_sqlite",
    "insert_rows",
    "rebuild_fts",
    "replace_rows",
    "save_rows",
    "table_names",
]

_CHUNK = 500
_BLOB = "__blob__"
_FTS_CONTENT = re.compile(r"content\s*=\s*['\"`]?([A-Za-z_][A-Za-z0-9_]*)", re.IGNORECASE)


def _chunks(items: list[Any]) -> Iterator[list[Any]]:
    for start in range(0, len(items), _CHUNK):
        yield items[start : start + _CHUNK]


def _encode(value: Any) -> Any:
    if isinstance(value, bytes):
        return {_BLOB: base64.b64encode(value).decode("ascii")}
    return value


def _decode(value: Any) -> Any:
    if isinstance(value, dict) and _BLOB in value:
        return base64.b64decode(value[_BLOB])
    return value


def table_names(connection: SqliteConnection) -> list[str]:
    """Ordinary tables: no SQLite internals, no virtual tables or their shadows."""
    rows = connection.execute("SELECT name, sql FROM sqlite_master WHERE type = 'table'").fetchall()
    virtual = [name for name, sql in rows if (sql or "").upper().startswith("CREATE VIRTUAL")]
    return sorted(
        name
        for name, sql in rows
        if not name.startswith("sqlite_")
        and name not in virtual
        and not any(name.startswith(f"{v}_") for v in virtual)
    )


def _has_rowid(connection: SqliteConnection, table: str) -> bool:
    try:
        connection.execute(f"SELECT rowid FROM {identifier(table)} LIMIT 0")
    except SqliteStatementError:
        return False
    return True


def _layout(connection: SqliteConnection, table: str) -> tuple[list[tuple[str, str]], list[str]]:
    info = connection.execute(f"PRAGMA table_info({identifier(table)})").fetchall()
    columns = [(row[1], row[2] or "") for row in info]
    key = [row[1] for row in sorted(info, key=lambda r: r[5]) if row[5] > 0]
    return columns, key or ["rowid"]


def save_rows(
    connection: SqliteConnection,
    table: str,
    column: str | None = None,
    values: Iterable[Any] | None = None,
) -> SavedTable:
    """Every column (and the rowid) of the rows whose ``column`` is one of
    ``values``; the whole table when ``column`` is None."""
    columns, key = _layout(connection, table)
    rowid = _has_rowid(connection, table)
    names = (["rowid"] if rowid else []) + [name for name, _ in columns]
    selected = ", ".join(identifier(name) if name != "rowid" else "rowid" for name in names)
    base = f"SELECT {selected} FROM {identifier(table)}"
    saved = SavedTable(table, "sqlite", columns, key=key)
    if column is None:
        batches: Iterable[list[Any]] = [connection.execute(base).fetchall()]
    else:
        wanted = list(dict.fromkeys(values or []))
        batches = (
            connection.execute(
                f"{base} WHERE {identifier(column)} IN ({', '.join('?' * len(chunk))})", chunk
            ).fetchall()
            for chunk in _chunks(wanted)
        )
    for batch in batches:
        saved.rows += [
            {name: _encode(value) for name, value in zip(names, row, strict=True)} for row in batch
        ]
    return saved


def dump_sqlite(connection: SqliteConnection) -> list[SavedTable]:
    """Every row of every ordinary table."""
    return [save_rows(connection, table) for table in table_names(connection)]


def delete_rows(connection: SqliteConnection, table: str, column: str, values: list[Any]) -> int:
    """Remove the rows whose ``column`` is one of ``values`` (inside the caller's transaction)."""
    removed = 0
    for chunk in _chunks(list(dict.fromkeys(values))):
        cursor = connection.execute(
            f"DELETE FROM {identifier(table)} WHERE {identifier(column)} IN "
            f"({', '.join('?' * len(chunk))})",
            chunk,
        )
        removed += max(cursor.rowcount, 0)
    return removed


def _key_clause(key: list[str]) -> str:
    return " AND ".join(f"{'rowid' if name == 'rowid' else identifier(name)} IS ?" for name in key)


def _exists(connection: SqliteConnection, saved: SavedTable, row: dict[str, Any]) -> bool:
    query = f"SELECT 1 FROM {identifier(saved.name)} WHERE {_key_clause(saved.key)} LIMIT 1"
    return (
        connection.execute(query, [_decode(row.get(k)) for k in saved.key]).fetchone() is not None
    )


def _insert(connection: SqliteConnection, saved: SavedTable, row: dict[str, Any]) -> None:
    names = [name for name, _ in saved.columns]
    table = identifier(saved.name)
    rowid = row.get("rowid")
    if (
        rowid is not None
        and connection.execute(f"SELECT 1 FROM {table} WHERE rowid = ?", (rowid,)).fetchone()
    ):
        rowid = None
    if rowid is not None:
        names_sql = ", ".join(["rowid", *(identifier(n) for n in names)])
        values = [rowid, *(_decode(row.get(n)) for n in names)]
    else:
        names_sql = ", ".join(identifier(n) for n in names)
        values = [_decode(row.get(n)) for n in names]
    marks = ", ".join("?" * len(values))
    connection.execute(f"INSERT INTO {table} ({names_sql}) VALUES ({marks})", values)


def _check_columns(connection: SqliteConnection, saved: SavedTable) -> None:
    from memexplorer.storage.exceptions import SchemaMismatchError

    present = {row[1] for row in connection.execute(f"PRAGMA table_info({identifier(saved.name)})")}
    missing = [name for name, _ in saved.columns if name not in present]
    if not present or missing:
        what = "the table" if not present else f"the columns {missing}"
        raise SchemaMismatchError(
            saved.name,
            f"The store no longer has {what}; nothing was restored",
            hint="Restore into the store the backup was taken from, with its schema.",
        )


def insert_rows(connection: SqliteConnection, saved: SavedTable) -> tuple[int, int]:
    """Write back saved rows whose key is free; (inserted, already there)."""
    _check_columns(connection, saved)
    inserted = 0
    for row in saved.rows:
        if _exists(connection, saved, row):
            continue
        _insert(connection, saved, row)
        inserted += 1
    return inserted, len(saved.rows) - inserted


def replace_rows(connection: SqliteConnection, saved: SavedTable) -> tuple[int, int]:
    """Put saved values back on rows that exist, insert the others; (replaced, inserted)."""
    _check_columns(connection, saved)
    replaced = inserted = 0
    others = [name for name, _ in saved.columns if name not in saved.key]
    sets = ", ".join(f"{identifier(n)} = ?" for n in others)
    for row in saved.rows:
        if not _exists(connection, saved, row):
            _insert(connection, saved, row)
            inserted += 1
            continue
        if sets:
            connection.execute(
                f"UPDATE {identifier(saved.name)} SET {sets} WHERE {_key_clause(saved.key)}",
                [*(_decode(row.get(n)) for n in others), *(_decode(row.get(k)) for k in saved.key)],
            )
        replaced += 1
    return replaced, inserted


def rebuild_fts(connection: SqliteConnection, tables: Iterable[str]) -> list[str]:
    """Rebuild every FTS5 index whose ``content=`` is one of ``tables``; their names."""
    changed = set(tables)
    rebuilt = []
    for name, sql in connection.execute(
        "SELECT name, sql FROM sqlite_master WHERE type = 'table' AND sql LIKE 'CREATE VIRTUAL%'"
    ).fetchall():
        if "fts5" not in (sql or "").lower():
            continue
        match = _FTS_CONTENT.search(sql)
        if match and match.group(1) in changed:
            fts = identifier(name)
            connection.execute(f"INSERT INTO {fts}({fts}) VALUES ('rebuild')")
            rebuilt.append(name)
    return rebuilt
