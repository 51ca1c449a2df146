"""Counting and listing queries over one agent's facts (``execute_aggregation``)."""

from __future__ import annotations

from typing import Any

from memexplorer.storage.exceptions import InvalidInputError
from memexplorer.storage.graphdb import GraphStore

__all__ = ["AGGREGATIONS", "aggregate"]

_CONCEPTS = "m.agent_id = $agent AND m.concept <> '' AND m.concept <> 'SUMMARY'"
_FILTER = " AND lower(m.concept) CONTAINS $filter"

AGGREGATIONS = (
    "count_total", "count_entities", "list_entities", "count_concepts", "list_concepts",
    "count_by_concept",
)  # fmt: skip


def aggregate(
    graph: GraphStore, agent_id: str, query_type: str, entity_filter: str = ""
) -> dict[str, Any]:
    """Run one of :data:`AGGREGATIONS` for ``agent_id``."""
    params: dict[str, Any] = {"agent": agent_id}
    concept_where = _CONCEPTS
    if entity_filter:
        concept_where += _FILTER
        params["filter"] = entity_filter.lower()

    def one(query: str) -> Any:
        rows = graph.rows(query, params)
        return rows[0][0] if rows else 0

    def column(query: str) -> list[Any]:
        return [row[0] for row in graph.rows(query, params)]

    if query_type == "count_total":
        count = one("MATCH (m:SemanticMemory) WHERE m.agent_id = $agent RETURN count(m)")
        return {"count": count, "query_type": query_type}
    if query_type == "count_entities":
        count = one(
            "MATCH (m:SemanticMemory) WHERE m.agent_id = $agent AND m.entity_name <> '' "
            "RETURN count(DISTINCT m.entity_name)"
        )
        return {"count": count, "query_type": query_type}
    if query_type == "list_entities":
        items = column(
            "MATCH (m:SemanticMemory) WHERE m.agent_id = $agent AND m.entity_name <> '' "
            "RETURN DISTINCT m.entity_name AS e ORDER BY e"
        )
        return {"count": len(items), "items": items, "query_type": query_type}
    if query_type == "count_concepts":
        count = one(f"MATCH (m:SemanticMemory) WHERE {_CONCEPTS} RETURN count(DISTINCT m.concept)")
        return {"count": count, "query_type": query_type}
    if query_type == "list_concepts":
        items = column(
            f"MATCH (m:SemanticMemory) WHERE {concept_where} "
            "RETURN DISTINCT m.concept AS c ORDER BY c"
        )
        return {"count": len(items), "items": items, "query_type": query_type}
    if query_type == "count_by_concept":
        rows = graph.rows(
            f"MATCH (m:SemanticMemory) WHERE {concept_where} "
            "RETURN m.concept AS c, count(m) AS n ORDER BY n DESC, c",
            params,
        )
        items = {concept: count for concept, count in rows}
        return {
            "count": len(items),
            "items": items,
            "total_facts": sum(items.values()),
            "query_type": query_type,
        }
    raise InvalidInputError(
        f"Unknown aggregation {query_type!r}", hint=f"Use one of: {', '.join(AGGREGATIONS)}."
    )
