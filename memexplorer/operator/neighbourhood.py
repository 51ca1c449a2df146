"""A node's neighbourhood to depth 1 or 2, capped per node, as plain data.

The app draws it as a graph; a hub with thousands of edges must not flood the
screen, so each expanded node keeps its best neighbours (heaviest edge first,
then the most recent) and counts the rest ("+N more"). Each BFS level costs one
count query and one edge query per node table involved (plus one per hub whose
edges exceed ``SCAN_LIMIT``); every value goes in as a parameter. The data
it returns is :mod:`.neighbourhood_types`'.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from memexplorer.operator.browse import GraphBrowser, StoreBrowser
from memexplorer.operator.browse_types import LABEL_COLUMNS, short_label
from memexplorer.operator.graph_node_detail import node_row
from memexplorer.operator.neighbourhood_types import (
    SCAN_LIMIT,
    TIME_COLUMNS,
    WEIGHT_COLUMNS,
    GraphEdge,
    GraphNode,
    NeighbourHit,
    Neighbourhood,
    View,
    node_id,
    rank_of,
    seconds_of,
)
from memexplorer.storage.exceptions import InvalidInputError
from memexplorer.storage.graphdb import GraphStore, identifier

#: The data types are importable here too, where the app and tests look for them.
__all__ = [
    "SCAN_LIMIT",
    "GraphEdge",
    "GraphNode",
    "Neighbourhood",
    "NeighbourhoodReader",
    "View",
    "node_id",
]


class NeighbourhoodReader:
    """Reads neighbourhoods from one Kuzu store (its catalog read once)."""

    def __init__(self, browser: StoreBrowser) -> None:
        if not isinstance(browser, GraphBrowser):
            raise InvalidInputError(
                f"{browser.path} is an SQLite store: its rows have no edges to draw",
                hint="The graph view needs a Kuzu store.",
            )
        self.graph: GraphStore = browser.graph
        tables = self.graph.node_tables()
        self.keys = {t: self.graph.primary_key(t) for t in tables}
        self.columns = {t: dict(self.graph.columns(t)) for t in tables}
        rels = self.graph.rel_tables()
        self.rel_columns = {r: dict(self.graph.columns(r)) for r in rels}
        self._projection = self._neighbour_columns()

    def _neighbour_columns(self) -> list[str]:
        """Neighbour columns every edge query returns: keys, label and time columns
        whose type agrees across the tables that have them (kuzu refuses others)."""
        wanted = [k for k in self.keys.values() if k] + [*LABEL_COLUMNS, *TIME_COLUMNS]
        out = []
        for name in dict.fromkeys(wanted):
            types = {cols[name] for cols in self.columns.values() if name in cols}
            if len(types) == 1:
                out.append(name)
        return out

    # -- the one entry point ---------------------------------------------------------------
    def read(self, table: str, key: str, view: View | None = None) -> Neighbourhood:
        view = view or View()
        if view.depth not in (1, 2):
            raise InvalidInputError(f"depth must be 1 or 2, not {view.depth}")
        centre = node_id(table, key)
        out = Neighbourhood(centre, view)
        out.nodes[centre] = GraphNode(centre, table, key, self._label(table, key), 0)
        frontier = [centre]
        level = 0
        while frontier:
            opening = [n for n in frontier if n not in view.collapsed
                       and (level < view.depth or n in view.expanded)]  # fmt: skip
            if not opening and level > 0:
                break
            frontier = self._expand(out, opening, level)
            level += 1
        return out

    def _label(self, table: str, key: str) -> str:
        pk = self.keys.get(table)
        if pk is None:
            raise InvalidInputError(f"{table!r} is no node table with a key in {self.graph.path}")
        names = [c for c in LABEL_COLUMNS if c in self.columns[table]]
        project = ", ".join(f"n.{identifier(c)}" for c in names) or "1"
        row = node_row(self.graph, table, pk, key, project)
        return short_label(dict(zip(names, row, strict=False))) or key

    def _expand(self, out: Neighbourhood, opening: list[str], level: int) -> list[str]:
        """Open these nodes: count their edges, keep the best neighbours, return the new."""
        degrees: dict[str, int] = {}
        hits: dict[str, list[NeighbourHit]] = {n: [] for n in opening}
        by_table: dict[str, list[str]] = {}
        for n in opening:
            by_table.setdefault(out.nodes[n].table, []).append(out.nodes[n].key)
        for table, keys in sorted(by_table.items()):
            degrees.update(self._degrees(table, keys))
            small = [k for k in keys if degrees.get(node_id(table, k), 0) <= SCAN_LIMIT]
            large = [k for k in keys if degrees.get(node_id(table, k), 0) > SCAN_LIMIT]
            for hit in self._hits(table, small):
                hits[hit.owner].append(hit)
            for k in large:
                for hit in self._hits(table, [k], limit=SCAN_LIMIT):
                    hits[hit.owner].append(hit)
        new: list[str] = []
        for n in opening:
            node = out.nodes[n]
            chosen = self._choose(out, node, hits[n])
            for hit in hits[n]:
                if hit.neighbour in chosen:
                    out.edges[hit.edge.id] = hit.edge
                    if hit.neighbour not in out.nodes:
                        out.nodes[hit.neighbour] = GraphNode(
                            hit.neighbour, hit.table, hit.key, hit.label, level + 1
                        )
                        new.append(hit.neighbour)
            drawn = len({h.edge.id for h in hits[n] if h.neighbour in chosen})
            degree = degrees.get(n, 0)
            out.nodes[n] = replace(node, degree=degree, shown=tuple(chosen),
                                   hidden=max(degree - drawn, 0))  # fmt: skip
        return new

    def _choose(self, out: Neighbourhood, node: GraphNode, hits: list[NeighbourHit]) -> list[str]:
        """The neighbours to draw, best first: the nearer ones it was reached from,
        then the top ``cap`` by heaviest edge, then most recent, then key."""
        best: dict[str, tuple[float, float, str]] = {}
        for hit in hits:
            rank = (rank_of(hit.edge.weight), rank_of(hit.edge.when), hit.neighbour)
            if hit.neighbour not in best or rank < best[hit.neighbour]:
                best[hit.neighbour] = rank
        ordered = sorted(best, key=best.__getitem__)
        nearer = [m for m in ordered if m in out.nodes and out.nodes[m].depth < node.depth]
        others = [m for m in ordered if m not in nearer and m != node.id]
        cap = out.view.cap_of(node.id, out.centre)
        return nearer + others[:cap]

    # -- queries ---------------------------------------------------------------------------
    def _match(self, table: str) -> str:
        pk = identifier(self.keys[table] or "")
        return f"MATCH (n:{identifier(table)})-[r]-(m) WHERE n.{pk} IN $keys"

    def _degrees(self, table: str, keys: list[str]) -> dict[str, int]:
        """Every edge once: an undirected match sees a self-loop twice."""
        pk = identifier(self.keys[table] or "")
        rows = self.graph.rows(
            f"{self._match(table)} RETURN n.{pk}, count(DISTINCT id(r))", {"keys": keys}
        )
        return {node_id(table, str(k)): int(c) for k, c in rows}

    def _hits(
        self, table: str, keys: list[str], limit: int | None = None
    ) -> Iterable[NeighbourHit]:
        if not keys:
            return
        pk = identifier(self.keys[table] or "")
        project = ", ".join(f"m.{identifier(c)}" for c in self._projection)
        cypher = f"{self._match(table)} RETURN n.{pk}, id(n), r, label(m), {project}"
        params: dict[str, Any] = {"keys": keys}
        if limit is not None:
            cypher += " LIMIT $limit"
            params["limit"] = limit
        seen: set[tuple[str, str]] = set()
        for row in self.graph.rows(cypher, params):
            owner_key, owner_internal, rel, neighbour_table = row[:4]
            values = dict(zip(self._projection, row[4:], strict=True))
            owner = node_id(table, str(owner_key))
            edge_id = f"{rel['_id']['table']}:{rel['_id']['offset']}"
            if (owner, edge_id) in seen:
                continue
            seen.add((owner, edge_id))
            neighbour_pk = self.keys.get(neighbour_table)
            neighbour_key = values.get(neighbour_pk) if neighbour_pk else None
            if neighbour_key is None:
                continue
            neighbour = node_id(neighbour_table, str(neighbour_key))
            outgoing = rel["_src"] == owner_internal
            yield NeighbourHit(
                owner,
                GraphEdge(
                    edge_id,
                    rel["_label"],
                    owner if outgoing else neighbour,
                    neighbour if outgoing else owner,
                    self._weight(rel),
                    self._when(rel, values),
                ),
                neighbour,
                neighbour_table,
                str(neighbour_key),
                short_label(values) or str(neighbour_key),
            )

    def _weight(self, rel: dict[str, Any]) -> float | None:
        own = self.rel_columns.get(rel["_label"], {})
        for name in WEIGHT_COLUMNS:
            value = rel.get(name) if name in own else None
            if isinstance(value, int | float) and not isinstance(value, bool):
                return float(value)
        return None

    def _when(self, rel: dict[str, Any], neighbour: dict[str, Any]) -> float | None:
        own = self.rel_columns.get(rel["_label"], {})
        for name in sorted(own):
            if name.endswith("_at") or name == "timestamp":
                seconds = seconds_of(rel.get(name))
                if seconds is not None:
                    return seconds
        for name in TIME_COLUMNS:
            seconds = seconds_of(neighbour.get(name))
            if seconds is not None:
                return seconds
        return None
