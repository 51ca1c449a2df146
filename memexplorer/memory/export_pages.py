"""Reading one agent's nodes and edges a page at a time, each page sorted.

One query that sorts a whole table holds all of it in the engine's buffer pool
(kuzu: "buffer pool is full" exporting 700k facts in 256 MiB). Here a page is a
range of the table's internal offsets (a node's own, an edge's source node's),
small enough for the pool and sorted there in the export's order; the pages are
put in one order afterwards (:mod:`.export_merge`). How many rows a page holds
follows the buffer pool (:func:`~.memory_budget.page_rows`).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import ExitStack
from typing import Any

from memexplorer.memory.export_schema import EdgeSpec
from memexplorer.storage.graph_store import GraphStore, QueryError, identifier
from memexplorer.storage.scan_threads import one_scan_thread

__all__ = [
    "agent_table_counts",
    "edge_pages",
    "edge_sort_key",
    "has_memories",
    "node_pages",
    "node_sort_key",
]

Row = Sequence[Any]
#: The fewest offsets a page reads before an export gives up for want of memory.
MIN_PAGE = 16
#: Arrow types whose Python values are what the engine's own rows hold.
_PLAIN_TYPES = frozenset({"string", "large_string", "double", "int64", "bool", "null"})


def has_memories(graph: GraphStore, agent: str) -> bool:
    """Whether the agent has a fact or an episode (one row looked at, not counted)."""
    present = set(graph.node_tables())
    return any(
        graph.rows(
            f"MATCH (n:{identifier(table)}) WHERE n.agent_id = $agent RETURN n.memory_id LIMIT 1",
            {"agent": agent},
        )
        for table in ("SemanticMemory", "EpisodicMemory")
        if table in present
    )


def agent_table_counts(graph: GraphStore, agent: str) -> dict[str, int]:
    """The agent's rows per table as an export counts them (edges by their source
    fact's agent), counted by the engine rather than read."""
    from memexplorer.memory.export_schema import EDGE_SPECS

    params = {"agent": agent}
    nodes, rels = set(graph.node_tables()), set(graph.rel_tables())
    counts = {}
    for table in ("SemanticMemory", "EpisodicMemory"):
        counts[table] = int(graph.scalar(
            f"MATCH (n:{identifier(table)}) WHERE n.agent_id = $agent RETURN count(n)", params
        ) or 0) if table in nodes else 0  # fmt: skip
    for spec in EDGE_SPECS:
        counts[spec.rel] = int(graph.scalar(
            f"MATCH (a:SemanticMemory)-[r:{identifier(spec.rel)}]->"
            f"(b:{identifier(spec.target_table)}) WHERE a.agent_id = $agent RETURN count(r)",
            params,
        ) or 0) if spec.rel in rels else 0  # fmt: skip
    return counts


def _top_offset(graph: GraphStore, table: str) -> int:
    """The highest internal offset in ``table`` (-1 when it is empty)."""
    top = graph.scalar(f"MATCH (n:{identifier(table)}) RETURN max(offset(id(n)))")
    return -1 if top is None else int(top)


def _page_rows(graph: GraphStore, cypher: str, params: dict[str, Any]) -> Sequence[Row]:
    """The query's rows, fetched as Arrow and turned into rows a column at a time:
    a third of the time of fetching 100k rows one by one. Columns of any other
    type than :data:`_PLAIN_TYPES` are read row by row, as before."""
    table = graph.arrow(cypher, params)
    if not all(str(field.type) in _PLAIN_TYPES for field in table.schema):
        return graph.rows(cypher, params)
    columns = [column.to_pylist() for column in table.columns]
    return list(zip(*columns, strict=True))


def _ranges(graph: GraphStore, cypher: str, agent: str, top: int, page: int) -> Iterator[list[Row]]:
    """``cypher``'s rows for offsets ``low`` to ``high`` (excluded), range after range
    up to ``top``.

    A range that does not fit the buffer pool is read again, first on one scan
    thread, then in halves. Why one thread first: what a page query pins is mostly
    the scan, not the page's rows (3,000 facts of 2 KB in an 8 MiB pool: pages of
    16 rows fail at some offset on two or four threads, depending on how the
    threads interleave, and pass every time on one). Smaller ranges alone do not
    help there; they do when rows are larger than :func:`~.memory_budget.page_rows`
    assumes. Both are kept for the rest of the table; the thread setting is put
    back when the pages end.
    """
    with ExitStack() as settings:
        one_thread = False
        low = 0
        while low <= top:
            try:
                rows = _page_rows(graph, cypher, {"low": low, "high": low + page, "agent": agent})
            except QueryError as exc:
                if "buffer pool is full" not in str(exc):
                    raise
                if not one_thread:
                    settings.enter_context(one_scan_thread(graph))
                    one_thread = True
                    continue
                if page <= MIN_PAGE:
                    raise QueryError(
                        f"{MIN_PAGE} rows do not fit in the store's buffer pool: {exc}",
                        hint="Give the command more memory, e.g. --memory 1G.",
                    ) from None
                page = max(MIN_PAGE, page // 2)
                continue
            low += page
            if rows:
                yield rows


def node_pages(
    graph: GraphStore, table: str, agent: str, columns: list[str], page: int
) -> Iterator[list[Row]]:
    """The agent's rows of ``table`` (``columns`` of ``n``; memory_id first, then
    the others, created_at among them), a page of at most ``page`` offsets at a
    time, each page in (created_at, memory_id) order, NULL created_at last."""
    returned = ", ".join(f"n.{identifier(name)}" for name in columns)
    cypher = (
        f"MATCH (n:{identifier(table)}) "
        "WHERE offset(id(n)) >= $low AND offset(id(n)) < $high AND n.agent_id = $agent "
        f"RETURN {returned} ORDER BY n.created_at, n.memory_id"
    )
    yield from _ranges(graph, cypher, agent, _top_offset(graph, table), page)


def node_sort_key(created_at: int) -> Any:
    """The global order of node rows whose created_at is column ``created_at``:
    the engine's ORDER BY n.created_at, n.memory_id (NULLs last, strings by code point)."""

    def key(row: Row) -> tuple[str, str, str]:
        stamp = row[created_at]
        return ("1" if stamp is None else "0", stamp or "", row[0])

    return key


def edge_pages(graph: GraphStore, spec: EdgeSpec, agent: str, page: int) -> Iterator[list[Row]]:
    """The edges of ``spec.rel`` leaving the agent's facts as rows (source id,
    target id, the spec's fields), a page of source offsets at a time, each page
    in (source id, target id) order."""
    props = ", ".join(f"r.{identifier(name)}" for name, _, _ in spec.fields)
    cypher = (
        f"MATCH (a:SemanticMemory)-[r:{identifier(spec.rel)}]->"
        f"(b:{identifier(spec.target_table)}) "
        "WHERE offset(id(a)) >= $low AND offset(id(a)) < $high AND a.agent_id = $agent "
        f"RETURN a.memory_id, b.memory_id, {props} ORDER BY a.memory_id, b.memory_id"
    )
    yield from _ranges(graph, cypher, agent, _top_offset(graph, "SemanticMemory"), page)


def edge_sort_key(row: Row) -> tuple[str, str]:
    return (row[0], row[1])
