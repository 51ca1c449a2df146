"""Browsing amplihack-rs's SQLite hierarchical store like a graph store.

The generic SQLite browser shows only tables with an agent column; here the
four edge tables belong to the agent of their source fact (as the Rust export
reads them), and a fact's page lists its edges in and out with the neighbour at
the other end, flagging orphans and superseded facts as the graph browser does.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .browse import EDGE_LIMIT, EdgeInfo, NodeDetail, SqliteBrowser, short_label
from .rs_sqlite_read import agents_of
from .rs_sqlite_schema import EDGE_TABLES, EPISODIC_TABLE, NODE_TABLES, SEMANTIC_TABLE

__all__ = ["RsSqliteBrowser"]

_EDGES = {edge.name: edge for edge in EDGE_TABLES}


class RsSqliteBrowser(SqliteBrowser):
    """An amplihack-rs ``<agent>.db``: read-only unless ``writable``."""

    def __init__(self, path: Path, *, writable: bool = False) -> None:
        super().__init__(path, writable=writable)

    def agents(self) -> list[str]:
        return agents_of(self.connection)

    def _where(self, table: str, agent: str) -> tuple[str, list[Any]]:
        if table in _EDGES:
            return (
                f" WHERE source_id IN (SELECT memory_id FROM {SEMANTIC_TABLE} WHERE agent_id = ?)",
                [agent],
            )
        return super()._where(table, agent)

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
