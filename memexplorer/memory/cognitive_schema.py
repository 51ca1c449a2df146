"""The CognitiveMemory schema (seed 000) and the records read from its rows.

Timestamps are epoch seconds (INT64), unlike HierarchicalMemory's ISO strings.
The reference library also adds ``embedding DOUBLE[768]`` (with a vector index)
to SemanticMemory; stores that have it read normally, and memexplorer neither
needs nor creates it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any, Generic, TypeVar

from memexplorer.memory import memory_types
from memexplorer.memory.hierarchical_schema import loads_json
from memexplorer.memory.memory_types import MemoryCategory
from memexplorer.storage.exceptions import SchemaMismatchError
from memexplorer.storage.shared_graph import SharedGraph

__all__ = [
    "CATEGORY_TABLES",
    "NODE_TABLES",
    "REL_TABLES",
    "RowReader",
    "check_schema",
    "consolidated_from_row",
    "create_missing_tables",
    "dumps",
    "episode_from_row",
    "fact_from_row",
    "procedure_from_row",
    "prospective_from_row",
    "sensory_from_row",
    "slot_from_row",
]

R = TypeVar("R")

#: Each node table's columns between ``agent_id STRING`` (first in every table)
#: and ``created_at INT64`` (last in every table), as the seed's DDL names them.
_MIDDLE_COLUMNS = {
    "SensoryMemory": "modality STRING, raw_data STRING, observation_order INT64, expires_at INT64",
    "WorkingMemory": "slot_type STRING, content STRING, relevance DOUBLE, task_id STRING",
    "EpisodicMemory": (
        "content STRING, source_label STRING, temporal_index INT64, "
        "compressed BOOLEAN, metadata STRING"
    ),
    "SemanticMemory": (
        "concept STRING, content STRING, confidence DOUBLE, source_id STRING, "
        "tags STRING, metadata STRING"
    ),
    "ProceduralMemory": "name STRING, steps STRING, prerequisites STRING, usage_count INT64",
    "ProspectiveMemory": (
        "desc_text STRING, trigger_condition STRING, action_on_trigger STRING, "
        "status STRING, priority INT64"
    ),
    "ConsolidatedEpisode": "summary STRING, original_count INT64",
}


def _columns(middle: str) -> tuple[tuple[str, str], ...]:
    spec = f"agent_id STRING, {middle}, created_at INT64"
    return tuple((name, kind) for name, _, kind in (c.partition(" ") for c in spec.split(", ")))


#: Node tables and their columns (all but the STRING primary key ``node_id``
#: listed with their types), in the seed's order.
NODE_TABLES: dict[str, tuple[tuple[str, str], ...]] = {
    table: _columns(middle) for table, middle in _MIDDLE_COLUMNS.items()
}

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


def _json_list(text: str | None) -> Any:
    return loads_json(text, [])


#: How a stored value becomes the record's: by the column's type, but for the
#: JSON text columns, and the epochs read as a datetime (created_at) or a float.
_BY_TYPE: dict[str, Callable[[Any], Any]] = {
    "STRING": lambda value: value or "",
    "INT64": lambda value: int(value or 0),
    "DOUBLE": lambda value: float(value or 0.0),
    "BOOLEAN": bool,
}
_BY_NAME: dict[str, Callable[[Any], Any]] = {
    "created_at": _when,
    "expires_at": lambda value: float(value or 0),
    "metadata": lambda value: loads_json(value, {}),
    "tags": _json_list,
    "steps": _json_list,
    "prerequisites": _json_list,
}


class RowReader(Generic[R]):
    """Reads a row of :attr:`fields` (node_id, then the table's columns but
    agent_id, as :meth:`returning` asks for them) into ``record``; ``renamed``
    maps a column to the record's field where the two names differ."""

    def __init__(self, table: str, record: Callable[..., R], **renamed: str) -> None:
        columns = NODE_TABLES[table][1:]
        self.record = record
        self.fields = ("node_id", *(name for name, _ in columns))
        self._convert = tuple(
            (renamed.get(name, name), _BY_NAME.get(name, _BY_TYPE[kind])) for name, kind in columns
        )

    def returning(self, alias: str) -> str:
        """``a.node_id, a.x, ...``: the RETURN list of :attr:`fields` for ``alias``'s node."""
        return ", ".join(f"{alias}.{name}" for name in self.fields)

    def __call__(self, row: Sequence[Any]) -> R:
        values = zip(self._convert, row[1:], strict=False)
        return self.record(node_id=row[0], **{name: read(v) for (name, read), v in values})


sensory_from_row = RowReader("SensoryMemory", memory_types.SensoryItem)
slot_from_row = RowReader("WorkingMemory", memory_types.WorkingMemorySlot)
episode_from_row = RowReader("EpisodicMemory", memory_types.EpisodicMemory)
fact_from_row = RowReader("SemanticMemory", memory_types.SemanticFact)
procedure_from_row = RowReader("ProceduralMemory", memory_types.ProceduralMemory)
prospective_from_row = RowReader(
    "ProspectiveMemory", memory_types.ProspectiveMemory, desc_text="description"
)
consolidated_from_row = RowReader("ConsolidatedEpisode", memory_types.ConsolidatedEpisode)
