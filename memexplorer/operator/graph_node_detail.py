"""One node of a Kuzu store as the node view shows it: every property, its edges in
and out grouped by rel type (at most EDGE_LIMIT each, the rest counted), and what
an operator should notice (an orphan fact, a superseded one).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from memexplorer.operator.browse_types import EDGE_LIMIT, EdgeInfo, NodeDetail, short_label
from memexplorer.storage.exceptions import InvalidInputError
from memexplorer.storage.graphdb import GraphStore, identifier

__all__ = ["GraphNodeDetail", "node_row"]


def node_row(graph: GraphStore, table: str, pk: str, key: str, returned: str) -> list[Any]:
    """``RETURN returned`` of the node whose primary key ``pk`` is ``key`` (``n``
    names it); a node that is not there (deleted since its table was read) raises."""
    rows = graph.rows(
        f"MATCH (n:{identifier(table)}) WHERE n.{identifier(pk)} = $key RETURN {returned}",
        {"key": key},
    )
    if not rows:
        raise InvalidInputError(
            f"No {table} node with {pk} = {key!r}",
            hint="It may have been deleted since the table was loaded; reload it.",
        )
    return rows[0]


class GraphNodeDetail:
    """The node view's reads, for :class:`.graph_browse.GraphBrowser` (its catalog)."""

    graph: GraphStore
    path: Path
    _node_tables: list[str]
    _keys: dict[str, str | None]
    _columns: dict[str, list[tuple[str, str]]]

    def node(self, table: str, key: str) -> NodeDetail:
        if table not in self._node_tables:
            raise InvalidInputError(f"{table!r} is not a node table of {self.path}")
        pk = self._keys[table]
        if pk is None:
            raise InvalidInputError(f"{table} has no primary key to find a node by")
        row = node_row(self.graph, table, pk, key, "n")
        own = [name for name, _ in self._columns[table]]
        detail = NodeDetail(table, key, {name: row[0].get(name) for name in own})
        for direction, pattern in (("out", "(n)-[r]->(m)"), ("in", "(n)<-[r]-(m)")):
            self._collect_edges(detail, direction, pattern)
        self._flag(detail)
        return detail

    def _collect_edges(self, detail: NodeDetail, direction: str, pattern: str) -> None:
        pk = identifier(self._keys[detail.table] or "")
        counts = self.graph.rows(
            f"MATCH {pattern.replace('(n)', f'(n:{identifier(detail.table)})', 1)} "
            f"WHERE n.{pk} = $key RETURN label(r), count(r)",
            {"key": detail.key},
        )
        for rel, count in counts:
            rows = self.graph.rows(
                f"MATCH {pattern.replace('(n)', f'(n:{identifier(detail.table)})', 1)} "
                f"WHERE n.{pk} = $key AND label(r) = $rel RETURN r, m LIMIT $limit",
                {"key": detail.key, "rel": rel, "limit": EDGE_LIMIT},
            )
            group = (rel, direction)
            own = [name for name, _ in self._columns.get(rel, [])]
            for edge, neighbour in rows:
                table = neighbour["_label"]
                neighbour_pk = self._keys.get(table)
                detail.edges.setdefault(group, []).append(
                    EdgeInfo(
                        rel,
                        direction,  # type: ignore[arg-type]
                        table,
                        str(neighbour.get(neighbour_pk) if neighbour_pk else ""),
                        short_label(neighbour),
                        {name: edge.get(name) for name in own},
                    )
                )
            if count > len(rows):
                detail.more[group] = count - len(rows)

    def _flag(self, detail: NodeDetail) -> None:
        """What an operator should notice: orphans and superseded facts."""
        source = detail.properties.get("source_id")
        derived = detail.edges.get(("DERIVES_FROM", "out"))
        if isinstance(source, str) and source and not derived and "EpisodicMemory" in self._keys:
            exists = self.graph.scalar(
                "MATCH (e:EpisodicMemory) WHERE e.memory_id = $id RETURN count(e)", {"id": source}
            )
            if not exists:
                detail.flags.append(f"orphan: source_id {source!r} names no episode")
        if detail.edges.get(("SUPERSEDES", "in")):
            newer = detail.edges[("SUPERSEDES", "in")][0]
            detail.flags.append(f"superseded by {newer.neighbour_key}")
