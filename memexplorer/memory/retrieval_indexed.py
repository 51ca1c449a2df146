"""The retrieval profiles' keyword steps answered from the keyword index, where it is exact.

Why: at a million facts each profile's keyword step scans every fact (about a
second). For agents with at least ``MEMEXPLORER_KEYWORD_INDEX_MIN`` facts
(50,000 by default; ``MEMEXPLORER_KEYWORD_INDEX=off`` turns it off) the
profiles ask :mod:`.keyword_matches` which facts the scan would return. The
facts of ``ranked`` and ``amplihack-rs`` are then read from the store itself by
primary key, with the scan's own tests and rank expression, and any difference
from the index's answer (a fact gone, a rank not equal to the bit) falls back
to the scan. The ``library`` profile's windows come from the index's copy of
the stored values. Why each gives the scan's answer: docs/keyword-index.md.
"""

from __future__ import annotations

import os
from typing import Any

from memexplorer.memory.hierarchical_schema import fact_columns
from memexplorer.memory.keyword_index import KeywordIndex, index_is_current, open_index
from memexplorer.memory.keyword_matches import (
    Test,
    first_matches,
    ranked_top,
    stored_values,
    top_by_confidence,
)
from memexplorer.memory.library_windows import Pattern, prefetch_windows
from memexplorer.storage.graph_store import GraphStore, QueryError

__all__ = [
    "KeywordIndex",
    "index_pending",
    "keyword_index_for",
    "library_windows",
    "ranked_rows",
    "rs_top_rows",
    "windows_from",
]

DEFAULT_MIN_FACTS = 50_000


def _min_facts() -> int:
    try:
        return int(os.environ.get("MEMEXPLORER_KEYWORD_INDEX_MIN", DEFAULT_MIN_FACTS))
    except ValueError:
        return DEFAULT_MIN_FACTS


def _wanted(graph: GraphStore) -> bool:
    """Whether this store is a graph store large enough for the index to pay off."""
    if os.environ.get("MEMEXPLORER_KEYWORD_INDEX", "on") == "off":
        return False
    if getattr(graph, "engine", None) not in ("kuzu", "ladybug"):
        return False
    try:
        count = graph.rows("MATCH (m:SemanticMemory) RETURN count(*)")[0][0]
    except (QueryError, IndexError):
        return False
    return bool(count >= _min_facts())


def index_pending(graph: GraphStore, agent: str) -> bool:
    """True when the next query will first build the index (the app says so)."""
    return _wanted(graph) and not index_is_current(graph, agent)


def keyword_index_for(graph: GraphStore, agent: str) -> KeywordIndex | None:
    """The agent's keyword index (built on first use), or None where the scan answers."""
    return open_index(graph, agent) if _wanted(graph) else None


def ranked_rows(
    graph: GraphStore,
    index: KeywordIndex,
    keywords: list[str],
    entities: list[str],
    body: str,
    params: dict[str, Any],
) -> list[list[Any]] | None:
    """The ``ranked`` scan's rows (``body`` is its WITH/WHERE/RETURN), or None."""
    top = ranked_top(index, keywords, entities, params["limit"])
    if top is None:
        return None
    lookup = {key: value for key, value in params.items() if key != "limit"}
    rows = []
    for rank, fact in top:
        found = graph.rows(
            f"MATCH (m:SemanticMemory {{memory_id: $id}}) WHERE m.agent_id = $agent {body}",
            lookup | {"id": fact[6]},
            reuse=True,
        )
        if len(found) != 1 or found[0][0] != fact[0] or found[0][-1] != rank:
            return None
        rows.append(found[0])
    return rows


_RS_LOOKUP = f"""
    MATCH (m:SemanticMemory {{memory_id: $id}})
    WHERE m.agent_id = $agent AND (lower(m.content) CONTAINS $keyword
                                   OR lower(m.concept) CONTAINS $keyword)
    RETURN offset(id(m)), {fact_columns("m")}
"""


def rs_top_rows(
    graph: GraphStore, index: KeywordIndex, agent: str, keyword: str, limit: int
) -> list[list[Any]] | None:
    """The ``amplihack-rs`` keyword query's rows (top ``limit`` by confidence), or None."""
    tests: list[Test] = [("content", keyword), ("concept", keyword)]
    top = top_by_confidence(index, tests, limit)
    if top is None:
        return None
    rows = []
    for fact in top:
        params = {"id": fact[6], "agent": agent, "keyword": keyword}
        found = graph.rows(_RS_LOOKUP, params, reuse=True)
        if len(found) != 1 or found[0][0] != fact[0] or found[0][4] != fact[4]:
            return None
        rows.append(found[0][1:])
    return rows


def library_windows(
    index: KeywordIndex, patterns: list[Pattern], limit: int
) -> dict[Pattern, list[list[Any]]] | None:
    """Each of the library's windows: its eight columns, first ``limit`` in table order."""
    windows: dict[Pattern, list[list[Any]]] = {}
    for kind, text in dict.fromkeys(patterns):
        tests: list[Test] = (
            [("entity", text)] if kind == "entity" else [("content", text), ("concept", text)]
        )
        rows = first_matches(index, tests, limit)
        if rows is None:
            return None
        stored = stored_values(index, rows)
        windows[(kind, text)] = [
            [row[6], *stored[row[0]][:2], row[4], *stored[row[0]][2:], row[5]] for row in rows
        ]
    return windows


def windows_from(
    index: KeywordIndex | None,
    graph: GraphStore,
    agent: str,
    patterns: list[Pattern],
    limit: int,
) -> dict[Pattern, list[list[Any]]] | None:
    """The library's windows from the index where it decides them, else from one capped scan."""
    windows = library_windows(index, patterns, limit) if index is not None else None
    return prefetch_windows(graph, agent, patterns, limit) if windows is None else windows
