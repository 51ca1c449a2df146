"""Every keyword and entity window of the ``library`` profile from one scan, when that is provable.

Why: the library asks one ``LIMIT`` query per entity candidate and per keyword,
each a scan of the agent's facts; a query like "94998" or "refund window" scans
the table two to four times. Read on one thread (see :mod:`.scan_threads`) a
window is the first ``limit`` matching facts in table order. So one scan, on all
threads, of every fact matching any of the patterns gives every window at once,
provided the scan returned every match: it is capped, and when the cap is
reached (common words) the caller asks the library's own queries instead.
"""

from __future__ import annotations

from typing import Any

from memexplorer.storage.graph_store import GraphStore, QueryError

__all__ = ["Pattern", "prefetch_windows"]

#: ("entity", text) or ("keyword", text): one of the library's window queries.
Pattern = tuple[str, str]

_COLUMNS = (
    "m.memory_id, m.concept, m.content, m.confidence, m.source_id, m.tags, m.metadata, m.created_at"
)


def _test(kind: str, number: int) -> str:
    if kind == "entity":
        return f"LOWER(m.entity_name) CONTAINS $p{number}"
    return f"(LOWER(m.content) CONTAINS $p{number} OR LOWER(m.concept) CONTAINS $p{number})"


def prefetch_windows(
    graph: GraphStore, agent_id: str, patterns: list[Pattern], limit: int
) -> dict[Pattern, list[list[Any]]] | None:
    """Each pattern's window rows (the library's eight columns, in its order), or
    None when one capped scan cannot decide them (or the store refuses the query)."""
    patterns = list(dict.fromkeys(patterns))
    if not patterns:
        return {}
    cap = limit * len(patterns) + 1
    params: dict[str, Any] = {"agent_id": agent_id, "cap": cap}
    tests = []
    for number, (kind, text) in enumerate(patterns):
        params[f"p{number}"] = text
        tests.append(_test(kind, number))
    cypher = f"""MATCH (m:SemanticMemory)
        WHERE m.agent_id = $agent_id AND ({" OR ".join(tests)})
        RETURN offset(id(m)), {_COLUMNS}, {", ".join(tests)}
        LIMIT $cap"""
    try:
        rows = graph.rows(cypher, params)
    except QueryError as exc:
        if "cancelled" in str(exc):
            raise
        return None
    if len(rows) >= cap:
        return None
    rows.sort(key=lambda row: row[0])
    return {
        pattern: [row[1:9] for row in rows if row[9 + number]][:limit]
        for number, pattern in enumerate(patterns)
    }
