"""What a neighbourhood is made of: the view asked for, its nodes and edges, and
how neighbours rank (heaviest edge first, then the most recent).

Plain data, read from a Kuzu store by :mod:`.neighbourhood` and from an
amplihack-rs SQLite store by :mod:`.rs_sqlite_neighbourhood`; the app draws it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import networkx as nx

__all__ = [
    "SCAN_LIMIT",
    "TIME_COLUMNS",
    "WEIGHT_COLUMNS",
    "GraphEdge",
    "GraphNode",
    "NeighbourHit",
    "Neighbourhood",
    "View",
    "node_id",
    "rank_of",
    "seconds_of",
]

#: Edge properties read as an edge's weight, first match wins.
WEIGHT_COLUMNS = ("weight", "similarity_score", "causal_strength", "strength", "confidence",
                  "relevance")  # fmt: skip
#: Node properties read as a neighbour's age when its edges carry no time.
TIME_COLUMNS = ("created_at", "timestamp")
#: A node with more edges than this is ranked among its first SCAN_LIMIT edges only.
SCAN_LIMIT = 5000


def node_id(table: str, key: str) -> str:
    """A node's id in a neighbourhood: its table and primary key."""
    return f"{table}:{key}"


@dataclass(frozen=True)
class View:
    """What to show: depth, caps, and the operator's expand/collapse choices."""

    depth: int = 1
    centre_cap: int = 12
    cap: int = 4
    expanded: frozenset[str] = frozenset()
    collapsed: frozenset[str] = frozenset()
    #: node id -> extra neighbours shown beyond its cap ("+N more" opened).
    more: tuple[tuple[str, int], ...] = ()

    def cap_of(self, node: str, centre: str) -> int:
        base = self.centre_cap if node == centre else self.cap
        return base + dict(self.more).get(node, 0)

    def toggled(self, node: str, *, is_open: bool) -> View:
        """The view with ``node`` collapsed if it is open, else expanded."""
        if is_open:
            return replace(self, expanded=self.expanded - {node}, collapsed=self.collapsed | {node})
        return replace(self, expanded=self.expanded | {node}, collapsed=self.collapsed - {node})

    def with_more(self, node: str, step: int) -> View:
        more = dict(self.more)
        more[node] = more.get(node, 0) + step
        return replace(self, more=tuple(sorted(more.items())))


@dataclass(frozen=True)
class GraphNode:
    id: str
    table: str
    key: str
    label: str
    depth: int
    #: Every edge of the node; None while it is not expanded (not counted).
    degree: int | None = None
    #: Expanded nodes: the neighbours drawn, best first.
    shown: tuple[str, ...] = ()
    #: Expanded nodes: edges not drawn, the "+N more".
    hidden: int = 0

    @property
    def expanded(self) -> bool:
        return self.degree is not None


@dataclass(frozen=True)
class GraphEdge:
    id: str
    rel: str
    source: str
    target: str
    weight: float | None
    when: float | None


@dataclass
class Neighbourhood:
    centre: str
    view: View
    nodes: dict[str, GraphNode] = field(default_factory=dict)
    edges: dict[str, GraphEdge] = field(default_factory=dict)

    def graph(self) -> nx.MultiDiGraph:
        """The drawn nodes and edges as networkx data (attributes: the dataclass fields)."""
        import networkx as nx  # imported here: it costs 0.13 s of every start

        graph = nx.MultiDiGraph(centre=self.centre)
        for node in self.nodes.values():
            graph.add_node(node.id, node=node, table=node.table, depth=node.depth)
        for edge in self.edges.values():
            graph.add_edge(edge.source, edge.target, key=edge.id, rel=edge.rel,
                           weight=edge.weight, edge=edge)  # fmt: skip
        return graph

    def between(self, a: str, b: str) -> list[GraphEdge]:
        """Every drawn edge joining two nodes, either way, heaviest first."""
        found = [e for e in self.edges.values() if {e.source, e.target} == {a, b}]
        return sorted(found, key=lambda e: (rank_of(e.weight), rank_of(e.when), e.rel, e.id))


def rank_of(value: float | None) -> float:
    """A weight or time as a sort key: the largest first, unknown last."""
    return -value if value is not None else math.inf


def seconds_of(value: Any) -> float | None:
    """Epoch numbers and ISO strings as seconds, so different stores rank alike."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, datetime):
        return value.timestamp()
    if isinstance(value, str):
        try:
            return datetime.fromisoformat(value).timestamp()
        except ValueError:
            return None
    return None


@dataclass
class NeighbourHit:
    """One row of an edge query: the expanded node, the edge, the neighbour."""

    owner: str
    edge: GraphEdge
    neighbour: str
    table: str
    key: str
    label: str
