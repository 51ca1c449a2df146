"""The transfer format's shape (seed 002): its versions, node fields and edge lists,
with each field's type and default. Export, validation and import all read it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["EDGE_SPECS", "EPISODIC_FIELDS", "FORMAT_VERSIONS", "SEMANTIC_FIELDS", "EdgeSpec"]

FORMAT_VERSIONS = ("1.0", "1.1")


@dataclass(frozen=True)
class EdgeSpec:
    """How one rel table appears in an export."""

    key: str
    rel: str
    target_table: str
    fields: tuple[tuple[str, type, Any], ...]  # (name, type, default)
    versions: tuple[str, ...] = FORMAT_VERSIONS


EDGE_SPECS = (
    EdgeSpec("similar_to_edges", "SIMILAR_TO", "SemanticMemory",
             (("weight", float, 1.0), ("metadata", dict, {}))),
    EdgeSpec("derives_from_edges", "DERIVES_FROM", "EpisodicMemory",
             (("extraction_method", str, ""), ("confidence", float, 1.0))),
    EdgeSpec("supersedes_edges", "SUPERSEDES", "SemanticMemory",
             (("reason", str, ""), ("temporal_delta", str, ""))),
    EdgeSpec("transitioned_to_edges", "TRANSITIONED_TO", "SemanticMemory",
             (("from_value", str, ""), ("to_value", str, ""), ("turn", int, 0),
              ("transition_type", str, "")), ("1.1",)),
)  # fmt: skip

SEMANTIC_FIELDS: tuple[tuple[str, type, Any], ...] = (
    ("concept", str, ""), ("content", str, ""), ("confidence", float, 0.8),
    ("source_id", str, ""), ("tags", list, []), ("metadata", dict, {}),
    ("created_at", str, ""), ("entity_name", str, ""),
)  # fmt: skip
EPISODIC_FIELDS: tuple[tuple[str, type, Any], ...] = (
    ("content", str, ""), ("source_label", str, ""), ("tags", list, []),
    ("metadata", dict, {}), ("created_at", str, ""),
)  # fmt: skip
