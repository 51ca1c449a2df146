"""Browsing an SQLite store (experiences, flat session memory) a page at a time.

Apart from browse.py, so amplihack-rs's SQLite browser (rs_sqlite_browse.py)
builds on this one without importing the module that chooses between them.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pyarrow as pa

from memexplorer.operator.browse_types import (
    ColumnInfo,
    NodeDetail,
    Page,
    PageQuery,
    TableInfo,
    agents_named,
    check_page_query,
)
from memexplorer.storage.exceptions import InvalidInputError, StoreError, StoreLockedError
from memexplorer.storage.graph_counts import agent_column
from memexplorer.storage.graphdb import identifier
from memexplorer.storage.sqlite_db import (
    SqliteConnection,
    SqliteStatementError,
    open_sqlite_autocommit,
)
from memexplorer.storage.sqlite_readonly import open_sqlite_readonly

__all__ = ["SqliteBrowser"]

_FTS_SHADOW = re.compile(r"_(data|idx|content|docsize|config)$")


def _open_sqlite_writable(path: Path) -> SqliteConnection:
    """A connection that may write (autocommit), refused while another process holds
    the store's write lock."""
    connection = open_sqlite_autocommit(path, any_thread=True)
    try:
        connection.execute("BEGIN IMMEDIATE")
        connection.execute("ROLLBACK")
    except SqliteStatementError as exc:
        connection.close()
        if "locked" in str(exc) or "busy" in str(exc):
            raise StoreLockedError(path, "Another process is writing this SQLite store") from None
        raise StoreError(path, f"SQLite cannot write this store ({exc})") from None
    return connection


class SqliteBrowser:
    """Browse an SQLite store (experiences, flat session memory), read-only unless
    opened ``writable`` (the app's writing mode: the console may then change it)."""

    def __init__(self, path: Path, *, writable: bool = False) -> None:
        self.path = path
        self.writable = writable
        self.connection = _open_sqlite_writable(path) if writable else open_sqlite_readonly(path)
        rows = self.connection.execute(
            "SELECT name, sql FROM sqlite_master WHERE type = 'table' ORDER BY name"
        ).fetchall()
        virtual = {name for name, sql in rows if (sql or "").upper().startswith("CREATE VIRTUAL")}
        self._tables = [
            name
            for name, _ in rows
            if not name.startswith("sqlite_")
            and name not in virtual
            and not any(_FTS_SHADOW.search(name) and name.startswith(v) for v in virtual)
        ]
        self._columns: dict[str, list[tuple[str, str, bool]]] = {}
        for table in self._tables:
            info = self.connection.execute(
                "SELECT name, type, pk FROM pragma_table_info(?)", (table,)
            ).fetchall()
            self._columns[table] = [(n, t, bool(pk)) for n, t, pk in info]

    def _agent_column(self, table: str) -> str | None:
        return agent_column(n for n, _, _ in self._columns[table])

    @staticmethod
    def _quoted(name: str) -> str:
        """A catalog name as an SQL identifier (checked, then double-quoted)."""
        identifier(name)
        return '"' + name + '"'

    def agents(self) -> list[str]:
        return agents_named(self._tables, self._agent_column, self._distinct)

    def _distinct(self, table: str, column: str) -> list[Any]:
        sql = f"SELECT DISTINCT {self._quoted(column)} FROM {self._quoted(table)}"
        return [row[0] for row in self.connection.execute(sql)]

    def _where(self, table: str, agent: str) -> tuple[str, list[Any]]:
        column = self._agent_column(table)
        if column is None:
            return "", []
        return f" WHERE {self._quoted(column)} = ?", [agent]

    def tables(self, agent: str) -> list[TableInfo]:
        out = []
        for table in self._tables:
            where, args = self._where(table, agent)
            if not where and agent:
                continue
            count = self.connection.execute(
                f"SELECT count(*) FROM {self._quoted(table)}{where}", args
            ).fetchone()[0]
            columns = tuple(ColumnInfo(n, t.upper() or "TEXT") for n, t, _ in self._columns[table])
            keys = [n for n, _, pk in self._columns[table] if pk]
            out.append(
                TableInfo(table, "table", count, columns, keys[0] if len(keys) == 1 else None)
            )
        return out

    def _selection(self, table: TableInfo, agent: str, text: str) -> tuple[str, list[Any]]:
        """``FROM … WHERE …`` of the rows a page shows, and its arguments."""
        where, args = self._where(table.name, agent)
        if text:
            text_columns = [c.name for c in table.columns if c.is_text]
            tests = " OR ".join(f"instr(lower({self._quoted(c)}), ?) > 0" for c in text_columns)
            where += (" AND " if where else " WHERE ") + f"({tests or '0'})"
            args += [text.lower()] * len(text_columns)
        return f"FROM {self._quoted(table.name)}{where}", args

    def page(self, table: TableInfo, agent: str, query: PageQuery) -> Page:
        check_page_query(table, query)
        source, args = self._selection(table, agent, query.text)
        total = self.connection.execute(f"SELECT count(*) {source}", args).fetchone()[0]
        order = ""
        if query.sort:
            order = f" ORDER BY {self._quoted(query.sort)} {'DESC' if query.descending else 'ASC'}"
        cursor = self.connection.execute(
            f"SELECT * {source}{order} LIMIT ? OFFSET ?", [*args, query.limit, query.offset]
        )
        names = [d[0] for d in cursor.description]
        rows = cursor.fetchall()
        data = pa.table({name: [row[i] for row in rows] for i, name in enumerate(names)})
        return Page(table.name, query, data, int(total))

    def matching_keys(self, table: TableInfo, agent: str, text: str) -> list[str]:
        """The key of every row a filter shows, over all pages, in one scan."""
        if table.primary_key is None:
            raise InvalidInputError(f"{table.name} rows have no key to list")
        source, args = self._selection(table, agent, text)
        cursor = self.connection.execute(f"SELECT {self._quoted(table.primary_key)} {source}", args)
        return [str(row[0]) for row in cursor.fetchall()]

    def node(self, table: str, key: str) -> NodeDetail:
        keys = [n for n, _, pk in self._columns.get(table, []) if pk]
        if len(keys) != 1:
            raise InvalidInputError(f"{table!r} has no single-column key to find a row by")
        cursor = self.connection.execute(
            f"SELECT * FROM {self._quoted(table)} WHERE {self._quoted(keys[0])} = ?", (key,)
        )
        row = cursor.fetchone()
        if row is None:
            raise InvalidInputError(f"No {table} row with {keys[0]} = {key!r}")
        names = [d[0] for d in cursor.description]
        return NodeDetail(table, key, dict(zip(names, row, strict=True)))

    def interrupt(self) -> None:
        self.connection.interrupt()

    def close(self) -> None:
        self.connection.close()
