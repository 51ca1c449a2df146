"""Neighbourhoods for the graph view in amplihack-rs's SQLite hierarchical store.

The graph view's reader (:class:`~.neighbourhood.NeighbourhoodReader`) walks a
graph store with Cypher; here the same walk reads the four edge tables with
SQL: a fact's edges leave it as ``source_id`` and reach it as ``target_id``, an
episode only receives DERIVES_FROM. Each edge is named by its table and row id,
weighted by its ``weight`` (SIMILAR_TO) or ``confidence`` (DERIVES_FROM), and
dated by the neighbour's ``created_at``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from memexplorer.memory.rs_sqlite_schema import (
    EDGE_TABLES,
    EPISODIC_TABLE,
    NODE_TABLES,
    SEMANTIC_TABLE,
)
from memexplorer.operator.browse_types import short_label
from memexplorer.operator.neighbourhood import NeighbourhoodReader
from memexplorer.operator.neighbourhood_types import GraphEdge, NeighbourHit, node_id, seconds_of
from memexplorer.operator.rs_sqlite_browse import RsSqliteBrowser
from memexplorer.storage.exceptions import InvalidInputError
from memexplorer.storage.sqlite_db import SqliteConnection

__all__ = ["RsNeighbourhoodReader"]

_LABEL = ("concept", "content")
_WEIGHT = {"similar_to_edges": "weight", "derives_from_edges": "confidence"}


def _ends(table: str) -> list[tuple[Any, str, str, str]]:
    """(edge table, this end, other end, the other end's table) for a node table."""
    out = []
    for edge in EDGE_TABLES:
        if table == SEMANTIC_TABLE:
            out.append((edge, "source_id", "target_id", edge.target_table))
        if table == edge.target_table:
            out.append((edge, "target_id", "source_id", SEMANTIC_TABLE))
    return out


class RsNeighbourhoodReader(NeighbourhoodReader):
    """Reads neighbourhoods from one amplihack-rs ``<agent>.db``."""

    def __init__(self, browser: RsSqliteBrowser) -> None:
        self.connection: SqliteConnection = browser.connection
        self.path = browser.path
        self.keys = {table: "memory_id" for table in NODE_TABLES}
        self.columns = {t: {n: ty for n, ty, _ in browser._columns[t]} for t in NODE_TABLES}

    def _label(self, table: str, key: str) -> str:
        if table not in NODE_TABLES:
            raise InvalidInputError(f"{table!r} is no node table of {self.path}",
                                    hint="Open a fact or an episode.")  # fmt: skip
        names = [c for c in _LABEL if c in self.columns[table]]
        row = self.connection.execute(
            f"SELECT {', '.join(names)} FROM {table} WHERE memory_id = ?", (key,)
        ).fetchone()
        if row is None:
            raise InvalidInputError(f"No {table} row with memory_id = {key!r}",
                                    hint="It may have been deleted; reload the table.")  # fmt: skip
        return short_label(dict(zip(names, row, strict=True))) or key

    def _degrees(self, table: str, keys: list[str]) -> dict[str, int]:
        """Every edge once (a self-loop is one edge)."""
        found: dict[str, set[str]] = {node_id(table, k): set() for k in keys}
        for edge, near, _, _ in _ends(table):
            for key in keys:
                rows = self.connection.execute(
                    f"SELECT id FROM {edge.name} WHERE {near} = ?", (key,)
                )
                found[node_id(table, key)] |= {f"{edge.name}:{r[0]}" for r in rows}
        return {owner: len(ids) for owner, ids in found.items()}

    def _hits(
        self, table: str, keys: list[str], limit: int | None = None
    ) -> Iterable[NeighbourHit]:
        seen: set[tuple[str, str]] = set()
        for key in keys:
            owner = node_id(table, key)
            for edge, near, far, other in _ends(table):
                weight = _WEIGHT.get(edge.name)
                sql = (
                    f"SELECT e.id, e.{far}, {'e.' + weight if weight else 'NULL'}, "
                    f"n.concept, n.content, n.created_at FROM {edge.name} e "
                    f"JOIN {other} n ON n.memory_id = e.{far} WHERE e.{near} = ? ORDER BY e.id"
                )
                if other == EPISODIC_TABLE:
                    sql = sql.replace("n.concept", "NULL")
                rows = self.connection.execute(sql + (" LIMIT ?" if limit else ""),
                                               (key, limit) if limit else (key,))  # fmt: skip
                for row_id, far_key, value, concept, content, created in rows:
                    edge_id = f"{edge.name}:{row_id}"
                    if (owner, edge_id) in seen:
                        continue
                    seen.add((owner, edge_id))
                    neighbour = node_id(other, far_key)
                    source, target = (
                        (owner, neighbour) if near == "source_id" else (neighbour, owner)
                    )
                    weighted = float(value) if isinstance(value, int | float) else None
                    label = short_label({"concept": concept, "content": content}) or far_key
                    yield NeighbourHit(owner, GraphEdge(edge_id, edge.rel, source, target, weighted,
                                                seconds_of(created)),
                               neighbour, other, far_key, label)  # fmt: skip
