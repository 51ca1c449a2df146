"""Browsing amplihack-rs's SQLite hierarchical store like a graph store.

The generic SQLite browser shows only tables with an agent column; here the
four edge tables belong to the agent of their source fact (as the Rust export
reads them), and a fact's page lists its edges in and out with the neighbour at
the other end, flagging orphans and superseded facts as the graph browser does.
Pages come in a stable order (sort column, then row id) and a page past the
middle is read from the far end, so the last page of 100k rows is as quick as
the first.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pyarrow as pa

from memexplorer.memory.rs_sqlite_read import agents_of
from memexplorer.memory.rs_sqlite_schema import (
    EDGE_TABLES,
    EPISODIC_TABLE,
    NODE_TABLES,
    SEMANTIC_TABLE,
)
from memexplorer.operator.browse_types import (
    EDGE_LIMIT,
    ColumnInfo,
    EdgeInfo,
    NodeDetail,
    Page,
    PageQuery,
    TableInfo,
    TableKind,
    check_page_query,
    short_label,
)
from memexplorer.operator.sqlite_browse import SqliteBrowser

__all__ = ["RsSqliteBrowser"]

_EDGES = {edge.name: edge for edge in EDGE_TABLES}


class RsSqliteBrowser(SqliteBrowser):
    """An amplihack-rs ``<agent>.db``: read-only unless ``writable``."""

    def agents(self) -> list[str]:
        return agents_of(self.connection)

    def _where(self, table: str, agent: str) -> tuple[str, list[Any]]:
        if table in _EDGES:
            return " WHERE _owner.agent_id = ?", [agent]
        return super()._where(table, agent)

    def tables(self, agent: str) -> list[TableInfo]:
        out = []
        for table in self._tables:
            if agent and not self._where(table, agent)[0]:
                continue
            columns = tuple(ColumnInfo(n, t.upper() or "TEXT") for n, t, _ in self._columns[table])
            keys = [n for n, _, pk in self._columns[table] if pk]
            kind: TableKind = "node" if table in NODE_TABLES else "table"
            info = TableInfo(table, kind, 0, columns, keys[0] if len(keys) == 1 else None)
            source, args = self._selection(info, agent, "")
            count = self.connection.execute(f"SELECT count(*) {source}", args).fetchone()[0]
            out.append(replace(info, count=count))
        return out

    def _selection(
        self, table: TableInfo, agent: str, text: str, *, rows: bool = False
    ) -> tuple[str, list[Any]]:
        """``FROM … WHERE …``: an edge table joined to its source fact (a join, not
        ``IN (subquery)``: three times faster at 100k facts), columns qualified.
        For ``rows`` (a page) the edge table is read first in its own order
        (``CROSS JOIN`` fixes SQLite's join order), so a page stops after its rows:
        0.1 ms instead of 150 at 200k edges; counts let the planner choose."""
        name = self._quoted(table.name)
        where, args = self._where(table.name, agent)
        if text:
            tests = " OR ".join(f"instr(lower({name}.{self._quoted(c.name)}), ?) > 0"
                                for c in table.columns if c.is_text)  # fmt: skip
            where += (" AND " if where else " WHERE ") + f"({tests or '0'})"
            args += [text.lower()] * sum(1 for c in table.columns if c.is_text)
        join = ""
        if table.name in _EDGES:
            kind = "CROSS JOIN" if rows else "JOIN"
            join = f" {kind} {SEMANTIC_TABLE} _owner ON _owner.memory_id = {name}.source_id"
        return f"FROM {name}{join}{where}", args

    def page(self, table: TableInfo, agent: str, query: PageQuery) -> Page:
        """A page in a stable order (the sort column, then the row id). A page past
        the middle is read from the other end and turned round, so the last page
        costs what the first does (a sorted last page of 100k facts: 25 ms, not 270)."""
        check_page_query(table, query)
        source, args = self._selection(table, agent, query.text)
        total = self.connection.execute(f"SELECT count(*) {source}", args).fetchone()[0]
        source, args = self._selection(table, agent, query.text, rows=True)
        offset, limit, descending = query.offset, query.limit, query.descending
        backwards = offset > 0 and offset + limit / 2 > total / 2
        if backwards:
            limit = max(0, min(limit, total - offset))
            offset, descending = max(0, total - query.offset - limit), not descending
        name = self._quoted(table.name)
        way = "DESC" if descending else "ASC"
        keys = [f"{name}.{self._quoted(query.sort)} {way}"] if query.sort else []
        order = ", ".join([*keys, f"{name}.rowid {way}"])
        cursor = self.connection.execute(
            f"SELECT {name}.* {source} ORDER BY {order} LIMIT ? OFFSET ?", [*args, limit, offset]
        )
        names = [d[0] for d in cursor.description]
        rows = cursor.fetchall()[::-1] if backwards else cursor.fetchall()
        data = pa.table({n: [row[i] for row in rows] for i, n in enumerate(names)})
        return Page(table.name, query, data, int(total))

    def matching_keys(self, table: TableInfo, agent: str, text: str) -> list[str]:
        if table.primary_key is None:
            return super().matching_keys(table, agent, text)
        source, args = self._selection(table, agent, text)
        name, key = self._quoted(table.name), self._quoted(table.primary_key)
        return [str(r[0]) for r in self.connection.execute(f"SELECT {name}.{key} {source}", args)]

    def node(self, table: str, key: str) -> NodeDetail:
        detail = super().node(table, key)
        if table not in NODE_TABLES:
            return detail
        for edge in EDGE_TABLES:
            if table == SEMANTIC_TABLE:
                self._collect(detail, edge.name, "out", edge.target_table)
            if table == edge.target_table:
                self._collect(detail, edge.name, "in", SEMANTIC_TABLE)
        self._flag(detail)
        return detail

    def _collect(self, detail: NodeDetail, table: str, direction: str, other: str) -> None:
        edge = _EDGES[table]
        near, far = ("source_id", "target_id") if direction == "out" else ("target_id", "source_id")
        columns = ", ".join(f"e.{c}" for c in ("id", *edge.columns))
        total = self.connection.execute(
            f"SELECT count(*) FROM {table} WHERE {near} = ?", (detail.key,)
        ).fetchone()[0]
        if not total:
            return
        cursor = self.connection.execute(
            f"SELECT e.{far}, {columns}, n.* FROM {table} e LEFT JOIN {other} n "
            f"ON n.memory_id = e.{far} WHERE e.{near} = ? ORDER BY e.id LIMIT ?",
            (detail.key, EDGE_LIMIT),
        )
        names = [d[0] for d in cursor.description]
        width = 1 + len(edge.columns)  # the edge's id and value columns
        group = (edge.rel, direction)
        for row in cursor.fetchall():
            neighbour = dict(zip(names[1 + width :], row[1 + width :], strict=True))
            properties = dict(zip(names[1 : 1 + width], row[1 : 1 + width], strict=True))
            label = short_label(neighbour) if neighbour.get("memory_id") else "(missing)"
            info = EdgeInfo(edge.rel, direction, other, str(row[0]), label, properties)  # type: ignore[arg-type]
            detail.edges.setdefault(group, []).append(info)
        shown = len(detail.edges.get(group, []))
        if total > shown:
            detail.more[group] = total - shown

    def _flag(self, detail: NodeDetail) -> None:
        """Orphans (a source_id naming no episode) and superseded facts."""
        source = detail.properties.get("source_id")
        if detail.table == SEMANTIC_TABLE and isinstance(source, str) and source:
            derived = detail.edges.get(("DERIVES_FROM", "out"))
            exists = self.connection.execute(
                f"SELECT count(*) FROM {EPISODIC_TABLE} WHERE memory_id = ?", (source,)
            ).fetchone()[0]
            if not derived and not exists:
                detail.flags.append(f"orphan: source_id {source!r} names no episode")
        if detail.edges.get(("SUPERSEDES", "in")):
            newer = detail.edges[("SUPERSEDES", "in")][0]
            detail.flags.append(f"superseded by {newer.neighbour_key}")
