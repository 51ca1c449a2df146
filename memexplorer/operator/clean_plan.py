"""A clean plan: the rows a selection matches in one store, table by table."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["LABEL_COLUMNS", "SAMPLE_SIZE", "Plan"]

#: How many matching rows a preview lists (the counts are always complete).
SAMPLE_SIZE = 20
#: The column that best names a row in a listing, first one present wins.
LABEL_COLUMNS = (
    "concept", "title", "context", "content", "name", "summary", "desc_text", "raw_data",
    "procedure_name", "intention", "session_id",
)  # fmt: skip


@dataclass
class Plan:
    """Per table, the key column and the key values of the rows to remove."""

    kind: str
    targets: dict[str, tuple[str, list[Any]]] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)
    edges: dict[str, int] = field(default_factory=dict)
    agents: set[str] = field(default_factory=set)
    sample: list[dict[str, Any]] = field(default_factory=list)

    def add(self, table: str, key: str, values: list[Any]) -> None:
        if values:
            self.targets[table] = (key, values)
            self.counts[table] = len(values)

    @property
    def rows(self) -> int:
        return sum(self.counts.values())

    @property
    def selected(self) -> dict[str, list[Any]]:
        return {table: values for table, (_, values) in self.targets.items()}
