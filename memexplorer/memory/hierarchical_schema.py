"""The HierarchicalMemory schema (seed 000) and the row shapes read from it."""

from __future__ import annotations

from typing import Any

from memexplorer.memory.knowledge import KnowledgeNode, MemoryCategory
from memexplorer.storage.graphdb import GraphStore
from memexplorer.storage.stored_json import decode_stored_json

__all__ = [
    "FACT_FIELDS",
    "REL_TABLES",
    "SCHEMA",
    "create_schema",
    "fact_columns",
    "fact_from_row",
    "loads_json",
]

SCHEMA: dict[str, str] = {
    "SemanticMemory": """
        CREATE NODE TABLE IF NOT EXISTS SemanticMemory(
            memory_id STRING, concept STRING, content STRING, confidence DOUBLE,
            source_id STRING, agent_id STRING, tags STRING, metadata STRING,
            created_at STRING, entity_name STRING DEFAULT '', PRIMARY KEY (memory_id))""",
    "EpisodicMemory": """
        CREATE NODE TABLE IF NOT EXISTS EpisodicMemory(
            memory_id STRING, content STRING, source_label STRING, agent_id STRING,
            tags STRING, metadata STRING, created_at STRING, PRIMARY KEY (memory_id))""",
    "SIMILAR_TO": """
        CREATE REL TABLE IF NOT EXISTS SIMILAR_TO(
            FROM SemanticMemory TO SemanticMemory, weight DOUBLE, metadata STRING)""",
    "DERIVES_FROM": """
        CREATE REL TABLE IF NOT EXISTS DERIVES_FROM(
            FROM SemanticMemory TO EpisodicMemory, extraction_method STRING, confidence DOUBLE)""",
    "SUPERSEDES": """
        CREATE REL TABLE IF NOT EXISTS SUPERSEDES(
            FROM SemanticMemory TO SemanticMemory, reason STRING, temporal_delta STRING)""",
    "TRANSITIONED_TO": """
        CREATE REL TABLE IF NOT EXISTS TRANSITIONED_TO(
            FROM SemanticMemory TO SemanticMemory, from_value STRING, to_value STRING,
            turn INT64, transition_type STRING)""",
}

REL_TABLES = ("SIMILAR_TO", "DERIVES_FROM", "SUPERSEDES", "TRANSITIONED_TO")

#: The SemanticMemory columns every fact query returns, in this order.
FACT_FIELDS = (
    "memory_id", "concept", "content", "confidence", "source_id", "tags", "metadata",
    "created_at", "entity_name",
)  # fmt: skip


def fact_columns(alias: str) -> str:
    """``m.memory_id, m.concept, ...`` for a query returning facts bound to ``alias``."""
    return ", ".join(f"{alias}.{name}" for name in FACT_FIELDS)


def create_schema(graph: GraphStore) -> None:
    """Create the spec's tables that are missing (never alters existing ones)."""
    for ddl in SCHEMA.values():
        graph.execute(ddl)


def loads_json(text: str | None, default: Any) -> Any:
    """Parse a JSON column; empty or damaged values read as ``default``.

    The reference library stores these columns as base64 of JSON since it moved
    to LadybugDB (``W10=`` for ``[]``), and as JSON before: both read the same
    (see :mod:`.stored_json`).
    """
    if not text:
        return default
    value, _ = decode_stored_json(text)
    return value if isinstance(value, type(default)) else default


def _category(metadata: dict[str, Any]) -> MemoryCategory:
    try:
        return MemoryCategory(metadata.get("category", "semantic"))
    except ValueError:
        return MemoryCategory.SEMANTIC


def fact_from_row(row: list[Any]) -> KnowledgeNode:
    """A KnowledgeNode from a row shaped like :data:`FACT_FIELDS`."""
    metadata = loads_json(row[6], {})
    node = KnowledgeNode(
        node_id=row[0],
        category=_category(metadata),
        content=row[2] or "",
        concept=row[1] or "",
        confidence=row[3] if row[3] is not None else 0.0,
        source_id=row[4] or "",
        created_at=row[7] or "",
        tags=loads_json(row[5], []),
        metadata=metadata,
        entity_name=row[8] or "",
    )
    return node
