"""The plain values browsing deals in: tables, columns, pages, a node and its edges.

Apart from the browsers that make them, so the page reader (graph_pages) and every
other module that only passes them on import these without importing a browser.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

import pyarrow as pa

from memexplorer.storage.exceptions import InvalidInputError

__all__ = [
    "EDGE_LIMIT",
    "JSON_COLUMNS",
    "LABEL_COLUMNS",
    "ColumnInfo",
    "EdgeInfo",
    "NodeDetail",
    "Page",
    "PageQuery",
    "TableInfo",
    "TableKind",
    "agents_named",
    "check_page_query",
    "short_label",
]

TableKind = Literal["node", "rel", "table"]
#: Columns whose text is JSON (shown pretty in the app's value view).
JSON_COLUMNS = frozenset({"tags", "metadata", "steps", "prerequisites"})
#: Per direction and rel type, the edges a node view lists before "+N more".
EDGE_LIMIT = 200
#: The columns a row's one-line name is made of, in the order they are tried.
LABEL_COLUMNS = ("concept", "name", "title", "description", "content", "summary",
                 "raw_data", "context")  # fmt: skip


@dataclass(frozen=True)
class ColumnInfo:
    name: str
    type: str

    @property
    def is_text(self) -> bool:
        return self.type.upper() in ("STRING", "TEXT", "VARCHAR") or self.type == ""


@dataclass(frozen=True)
class TableInfo:
    """One table as an agent sees it: its rows of that agent, its columns."""

    name: str
    kind: TableKind
    count: int
    columns: tuple[ColumnInfo, ...]
    primary_key: str | None = None
    endpoints: tuple[tuple[str, str], ...] = ()

    @property
    def column_names(self) -> list[str]:
        return [c.name for c in self.columns]


@dataclass(frozen=True)
class PageQuery:
    """Which rows to show: a window, an order and a text filter."""

    offset: int = 0
    limit: int = 100
    sort: str | None = None
    descending: bool = False
    text: str = ""


@dataclass(frozen=True)
class Page:
    table: str
    query: PageQuery
    data: pa.Table
    total: int

    @property
    def first(self) -> int:
        return self.query.offset + 1 if self.data.num_rows else 0

    @property
    def last(self) -> int:
        return self.query.offset + self.data.num_rows

    def describe(self) -> str:
        """Honest counts: "1–100 of 48,213" (and what filters them)."""
        where = f" matching {self.query.text!r}" if self.query.text else ""
        if not self.total:
            return f"no rows{where}"
        return f"{self.first:,}–{self.last:,} of {self.total:,}{where}"


@dataclass(frozen=True)
class EdgeInfo:
    rel: str
    direction: Literal["out", "in"]
    neighbour_table: str
    neighbour_key: str
    neighbour_label: str
    properties: dict[str, Any]


@dataclass
class NodeDetail:
    table: str
    key: str
    properties: dict[str, Any]
    edges: dict[tuple[str, str], list[EdgeInfo]] = field(default_factory=dict)
    more: dict[tuple[str, str], int] = field(default_factory=dict)
    flags: list[str] = field(default_factory=list)

    @property
    def label(self) -> str:
        return short_label(self.properties) or self.key


def short_label(properties: dict[str, Any], width: int = 60) -> str:
    """A one-line name for a row: its concept, name or title with the start of its
    text ("service ports: checkout-api listens on 8443"), else the start of its text."""
    parts = []
    for column in LABEL_COLUMNS:
        value = properties.get(column)
        if isinstance(value, str) and value.strip():
            parts.append(" ".join(value.split()))
            if len(parts) == 2 or column in ("content", "summary", "raw_data", "context"):
                break
    text = ": ".join(parts)
    return text if len(text) <= width else text[: width - 1] + "…"


def check_page_query(table: TableInfo, query: PageQuery) -> None:
    """Refuse a page query the table cannot answer (unknown sort column, bad window)."""
    if query.sort is not None and query.sort not in table.column_names:
        raise InvalidInputError(
            f"{table.name} has no column {query.sort!r} to sort by",
            hint=f"Columns: {', '.join(table.column_names)}",
        )
    if query.limit <= 0 or query.offset < 0:
        raise InvalidInputError(f"A page needs offset >= 0 and limit > 0, not {query}")


def agents_named(
    tables: Iterable[str],
    agent_column: Callable[[str], str | None],
    distinct: Callable[[str, str], Iterable[Any]],
) -> list[str]:
    """Every agent any table's agent column names (``distinct(table, column)`` reads
    its values; none is ""), sorted: a store's agents, as the tree lists them."""
    found: set[str] = set()
    for table in tables:
        column = agent_column(table)
        if column:
            found.update(value or "" for value in distinct(table, column))
    return sorted(found)
