"""The CognitiveMemory schema (seed 000) and the records read from its rows.

Timestamps are epoch seconds (INT64), unlike HierarchicalMemory's ISO strings.
The reference library also adds ``embedding DOUBLE[768]`` (with a vector index)
to SemanticMemory; stores that have it read normally, and memexplorer neither
needs nor creates it.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from memexplorer.memory.hierarchical_schema import loads_json
from memexplorer.memory.memory_types import (
    ConsolidatedEpisode,
    EpisodicMemory,
    MemoryCategory,
    ProceduralMemory,
    ProspectiveMemory,
    SemanticFact,
    SensoryItem,
    WorkingMemorySlot,
)
from memexplorer.storage.exceptions import SchemaMismatchError
from memexplorer.storage.shared_graph import SharedGraph

__all__ = [
    "CATEGORY_TABLES",
    "EPISODE_FIELDS",
    "FACT_FIELDS",
    "NODE_TABLES",
    "PROCEDURE_FIELDS",
    "PROSPECTIVE_FIELDS",
    "REL_TABLES",
    "SENSORY_FIELDS",
    "SLOT_FIELDS",
    "check_schema",
    "consolidated_from_row",
    "create_missing_tables",
    "dumps",
    "episode_from_row",
    "fact_from_row",
    "procedure_from_row",
    "prospective_from_row",
    "returning",
    "sensory_from_row",
    "slot_from_row",
]

#: Node tables and their columns (all but the STRING primary key ``node_id``
#: listed with their types), in the seed's order.
NODE_TABLES: dict[str, tuple[tuple[str, str], ...]] = {
    "SensoryMemory": (
        ("agent_id", "STRING"), ("modality", "STRING"), ("raw_data", "STRING"),
        ("observation_order", "INT64"), ("expires_at", "INT64"), ("created_at", "INT64"),
    ),
    "WorkingMemory": (
        ("agent_id", "STRING"), ("slot_type", "STRING"), ("content", "STRING"),
        ("relevance", "DOUBLE"), ("task_id", "STRING"), ("created_at", "INT64"),
    ),
    "EpisodicMemory": (
        ("agent_id", "STRING"), ("content", "STRING"), ("source_label", "STRING"),
        ("temporal_index", "INT64"), ("compressed", "BOOLEAN"), ("metadata", "STRING"),
        ("created_at", "INT64"),
    ),
    "SemanticMemory": (
        ("agent_id", "STRING"), ("concept", "STRING"), ("content", "STRING"),
        ("confidence", "DOUBLE"), ("source_id", "STRING"), ("tags", "STRING"),
        ("metadata", "STRING"), ("created_at", "INT64"),
    ),
    "ProceduralMemory": (
        ("agent_id", "STRING"), ("name", "STRING"), ("steps", "STRING"),
        ("prerequisites", "STRING"), ("usage_count", "INT64"), ("created_at", "INT64"),
    ),
    "ProspectiveMemory": (
        ("agent_id", "STRING"), ("desc_text", "STRING"), ("trigger_condition", "STRING"),
        ("action_on_trigger", "STRING"), ("status", "STRING"), ("priority", "INT64"),
        ("created_at", "INT64"),
    ),
    "ConsolidatedEpisode": (
        ("agent_id", "STRING"), ("summary", "STRING"), ("original_count", "INT64"),
        ("created_at", "INT64"),
    ),
}  # fmt: skip

#: Rel tables: (from, to, property, type).
REL_TABLES: dict[str, tuple[str, str, str, str]] = {
    "SIMILAR_TO": ("SemanticMemory", "SemanticMemory", "similarity_score", "DOUBLE"),
    "DERIVES_FROM": ("SemanticMemory", "EpisodicMemory", "derived_at", "INT64"),
    "PROCEDURE_DERIVES_FROM": ("ProceduralMemory", "EpisodicMemory", "derived_at", "INT64"),
    "CONSOLIDATES": ("ConsolidatedEpisode", "EpisodicMemory", "consolidated_at", "INT64"),
    "ATTENDED_TO": ("SensoryMemory", "EpisodicMemory", "attended_at", "INT64"),
}

CATEGORY_TABLES: dict[MemoryCategory, str] = {
    MemoryCategory.SENSORY: "SensoryMemory",
    MemoryCategory.WORKING: "WorkingMemory",
    MemoryCategory.EPISODIC: "EpisodicMemory",
    MemoryCategory.SEMANTIC: "SemanticMemory",
    MemoryCategory.PROCEDURAL: "ProceduralMemory",
    MemoryCategory.PROSPECTIVE: "ProspectiveMemory",
}

# The columns each reader returns, in the order the *_from_row functions expect.
SENSORY_FIELDS = ("node_id", "modality", "raw_data", "observation_order", "expires_at",
                  "created_at")  # fmt: skip
SLOT_FIELDS = ("node_id", "slot_type", "content", "relevance", "task_id", "created_at")
EPISODE_FIELDS = ("node_id", "content", "source_label", "temporal_index", "compressed",
                  "created_at", "metadata")  # fmt: skip
FACT_FIELDS = ("node_id", "concept", "content", "confidence", "source_id", "tags", "metadata",
               "created_at")  # fmt: skip
PROCEDURE_FIELDS = ("node_id", "name", "steps", "prerequisites", "usage_count", "created_at")
PROSPECTIVE_FIELDS = ("node_id", "desc_text", "trigger_condition", "action_on_trigger", "status",
                      "priority", "created_at")  # fmt: skip
CONSOLIDATED_FIELDS = ("node_id", "summary", "original_count", "created_at")


def returning(alias: str, fields: tuple[str, ...]) -> str:
    """``a.x, a.y, ...``: the RETURN list for ``fields`` of the node bound to ``alias``."""
    return ", ".join(f"{alias}.{name}" for name in fields)


def _node_ddl(table: str) -> str:
    columns = ", ".join(f"{name} {kind}" for name, kind in NODE_TABLES[table])
    return (
        f"CREATE NODE TABLE IF NOT EXISTS {table}(node_id STRING, {columns}, PRIMARY KEY(node_id))"
    )


def _rel_ddl(table: str) -> str:
    source, target, prop, kind = REL_TABLES[table]
    return f"CREATE REL TABLE IF NOT EXISTS {table}(FROM {source} TO {target}, {prop} {kind})"


def create_missing_tables(graph: SharedGraph) -> None:
    """Create the spec's tables this store lacks; existing ones stay as they are."""
    present = graph.table_names()
    statements = [_node_ddl(t) for t in NODE_TABLES if t not in present]
    statements += [_rel_ddl(t) for t in REL_TABLES if t not in present]
    for ddl in statements:
        graph.execute(ddl)
    if statements:
        graph.forget_catalog()


_TYPE_ALIASES = {"BOOL": "BOOLEAN"}


def check_schema(graph: SharedGraph) -> None:
    """Refuse a store whose cognitive tables lack the columns we read.

    A HierarchicalMemory store also has SemanticMemory and EpisodicMemory, keyed
    by ``memory_id``: saying so beats a query error on the first read.
    """
    present = graph.table_names()
    for table, spec in NODE_TABLES.items():
        if table not in present:
            continue
        actual = {name: _TYPE_ALIASES.get(kind, kind) for name, kind in graph.columns(table)}
        if "memory_id" in actual and "node_id" not in actual:
            raise SchemaMismatchError(
                graph.path,
                f"{table} is keyed by memory_id: this is a HierarchicalMemory store",
                hint="Open it with HierarchicalMemory, or give CognitiveMemory another db_path.",
            )
        wanted = {"node_id": "STRING", **{name: kind for name, kind in spec}}
        wrong = [f"{n} {k}" for n, k in wanted.items() if actual.get(n) != k]
        if wrong:
            raise SchemaMismatchError(
                graph.path,
                f"{table} lacks the CognitiveMemory columns {', '.join(wrong)}",
                hint="This store was not written by CognitiveMemory; give it another db_path.",
            )


def dumps(value: Any) -> str:
    return json.dumps(value)


def _when(epoch: int | float | None) -> datetime:
    """A stored epoch as the naive local datetime the reference returns."""
    return datetime.fromtimestamp(epoch or 0)


def sensory_from_row(row: list[Any]) -> SensoryItem:
    return SensoryItem(
        node_id=row[0],
        modality=row[1] or "",
        raw_data=row[2] or "",
        observation_order=int(row[3] or 0),
        expires_at=float(row[4] or 0),
        created_at=_when(row[5]),
    )


def slot_from_row(row: list[Any]) -> WorkingMemorySlot:
    return WorkingMemorySlot(
        node_id=row[0],
        slot_type=row[1] or "",
        content=row[2] or "",
        relevance=float(row[3] or 0.0),
        task_id=row[4] or "",
        created_at=_when(row[5]),
    )


def episode_from_row(row: list[Any]) -> EpisodicMemory:
    return EpisodicMemory(
        node_id=row[0],
        content=row[1] or "",
        source_label=row[2] or "",
        temporal_index=int(row[3] or 0),
        compressed=bool(row[4]),
        created_at=_when(row[5]),
        metadata=loads_json(row[6], {}),
    )


def fact_from_row(row: list[Any]) -> SemanticFact:
    return SemanticFact(
        node_id=row[0],
        concept=row[1] or "",
        content=row[2] or "",
        confidence=float(row[3] or 0.0),
        source_id=row[4] or "",
        tags=loads_json(row[5], []),
        metadata=loads_json(row[6], {}),
        created_at=_when(row[7]),
    )


def procedure_from_row(row: list[Any]) -> ProceduralMemory:
    return ProceduralMemory(
        node_id=row[0],
        name=row[1] or "",
        steps=loads_json(row[2], []),
        prerequisites=loads_json(row[3], []),
        usage_count=int(row[4] or 0),
        created_at=_when(row[5]),
    )


def prospective_from_row(row: list[Any]) -> ProspectiveMemory:
    return ProspectiveMemory(
        node_id=row[0],
        description=row[1] or "",
        trigger_condition=row[2] or "",
        action_on_trigger=row[3] or "",
        status=row[4] or "",
        priority=int(row[5] or 0),
        created_at=_when(row[6]),
    )


def consolidated_from_row(row: list[Any]) -> ConsolidatedEpisode:
    return ConsolidatedEpisode(
        node_id=row[0],
        summary=row[1] or "",
        original_count=int(row[2] or 0),
        created_at=_when(row[3]),
    )
