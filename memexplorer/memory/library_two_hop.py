"""The library's two-hop SIMILAR_TO rows for a seed, without scanning every edge.

Why: the library asks ``(a {memory_id: $sid})-[:SIMILAR_TO]->()-[r2:SIMILAR_TO]->(c)``
(:data:`.library_queries.TWO_HOP_QUERY`). The database plans it as a scan of
every SIMILAR_TO edge from the ``c`` side, joined on the seed's neighbours by a
hash join: 57 ms per expanded seed at 100k facts (200k edges), whatever the
seed's degree.

In kuzu 0.11 those rows come by target offset, then by edge offset: on the
retrieval oracle's reference stores, all 3,399 seeds' rows, and all 320
targets reached by several edges. So here the seed's out-neighbours are read
by primary key, then each neighbour's outgoing edges by primary key (a few
milliseconds each), and the rows sorted that way: same rows, same
multiplicity (a neighbour reached by two edges from the seed gives its rows
twice, as the join does), same order, 8 ms instead of 57. LadybugDB's join
hands them in an order of its own, which even changes between runs (targets
out of offset order for 42 and 44 of 3,388 seeds in two runs; one target's
edges newest first in 315 of 316), so on LadybugDB stores the library's query
is asked as it is.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from memexplorer.memory.library_queries import TWO_HOP_QUERY

__all__ = ["NEIGHBOURS_QUERY", "OUT_EDGES_QUERY", "two_hop_rows"]

#: The seed's outgoing SIMILAR_TO neighbours, any agent (the library's ``()``).
NEIGHBOURS_QUERY = """
    MATCH (a:SemanticMemory {memory_id: $sid})-[:SIMILAR_TO]->(b:SemanticMemory)
    RETURN b.memory_id"""

#: One neighbour's outgoing edges: the target's and the edge's offsets (the
#: library's row order in kuzu), then the library's ten columns.
OUT_EDGES_QUERY = """
    MATCH (b:SemanticMemory {memory_id: $bid})-[r2:SIMILAR_TO]->(c:SemanticMemory)
    WHERE c.agent_id = $agent_id AND c.memory_id <> $sid
    RETURN offset(id(c)), offset(id(r2)),
           c.memory_id, c.concept, c.content, c.confidence,
           c.source_id, c.tags, c.created_at, r2.weight, c.metadata,
           r2.metadata"""

Rows = Callable[[str, dict[str, Any]], "list[list[Any]] | None"]


def two_hop_rows(
    rows: Rows, seed_id: str, agent_id: str, *, ladybug: bool = False
) -> list[list[Any]] | None:
    """The library's two-hop branch for ``seed_id``, in its order; None when a
    query fails (the library's one query would have failed as a whole)."""
    params = {"sid": seed_id, "agent_id": agent_id}
    if ladybug:
        return rows(TWO_HOP_QUERY, params)
    neighbours = rows(NEIGHBOURS_QUERY, {"sid": seed_id})
    if neighbours is None:
        return None
    found: list[list[Any]] = []
    for (neighbour,) in neighbours:
        edges = rows(OUT_EDGES_QUERY, {**params, "bid": neighbour})
        if edges is None:
            return None
        found.extend(edges)
    found.sort(key=lambda row: (row[0], row[1]))
    return [row[2:] for row in found]
