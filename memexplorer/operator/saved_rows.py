"""Rows of any table as JSON that brings back the exact values (backups, restore).

A saved table records its columns with their engine types, so each value is
written back as what it was: Kuzu TIMESTAMPs as ISO text with microseconds,
fixed-size arrays (``DOUBLE[768]``) as lists, bytes as base64. A column type
this module cannot bring back exactly is refused before anything is deleted.
"""

from __future__ import annotations

import base64
import re
import uuid
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import Any, Literal

from memexplorer.storage.exceptions import InvalidInputError

__all__ = [
    "EDGE_FIELDS",
    "SavedTable",
    "UnsupportedColumnError",
    "check_types",
    "decode_value",
    "encode_value",
    "is_array_type",
]

TableKind = Literal["node", "rel", "sqlite"]

#: Keys every saved edge carries besides its properties.
EDGE_FIELDS = ("_from_table", "_from", "_to_table", "_to")

_SCALARS = {
    "STRING", "INT64", "INT32", "INT16", "INT8", "UINT64", "UINT32", "UINT16", "UINT8",
    "INT128", "DOUBLE", "FLOAT", "BOOL", "SERIAL",
}  # fmt: skip
_TIMES = {"TIMESTAMP", "TIMESTAMP_MS", "TIMESTAMP_NS", "TIMESTAMP_SEC", "TIMESTAMP_TZ"}
_OTHERS = {"DATE", "INTERVAL", "BLOB", "UUID"}
_LIST = re.compile(r"^([A-Z][A-Z0-9_]*)((?:\[\d*\])+)$")


class UnsupportedColumnError(InvalidInputError):
    title = "Cannot back up this column"
    hint = "Nothing was changed. memexplorer backs up scalar, time, list and array columns only."


def is_array_type(kind: str) -> bool:
    """A fixed-size Kuzu array such as ``DOUBLE[768]`` (a list is ``DOUBLE[]``)."""
    match = _LIST.match(kind)
    return bool(match and re.search(r"\[\d+\]", match.group(2)))


def _base(kind: str) -> str:
    match = _LIST.match(kind)
    return match.group(1) if match else kind


def check_types(table: str, columns: list[tuple[str, str]]) -> None:
    """Raise unless every column can be saved and written back exactly."""
    for name, kind in columns:
        base = _base(kind.upper())
        if base not in _SCALARS | _TIMES | _OTHERS:
            raise UnsupportedColumnError(f"{table}.{name} has type {kind}, which cannot be saved")


def encode_value(kind: str, value: Any) -> Any:
    """A stored value as plain JSON, given its column type."""
    if value is None:
        return None
    if isinstance(value, list | tuple):
        inner = kind[: kind.rfind("[")] if "[" in kind else kind
        return [encode_value(inner, item) for item in value]
    if isinstance(value, datetime | date):
        return value.isoformat()
    if isinstance(value, timedelta):
        return {"days": value.days, "seconds": value.seconds, "microseconds": value.microseconds}
    if isinstance(value, bytes):
        return base64.b64encode(value).decode("ascii")
    if isinstance(value, uuid.UUID):
        return str(value)
    return value


def decode_value(kind: str, value: Any) -> Any:
    """The inverse of :func:`encode_value`: JSON back to the value to write."""
    if value is None:
        return None
    upper = kind.upper()
    if isinstance(value, list):
        inner = upper[: upper.rfind("[")] if "[" in upper else upper
        return [decode_value(inner, item) for item in value]
    if upper in _TIMES:
        return datetime.fromisoformat(value)
    if upper == "DATE":
        return date.fromisoformat(value)
    if upper == "INTERVAL":
        return timedelta(**value)
    if upper == "BLOB" and isinstance(value, str):
        return base64.b64decode(value)
    return value


@dataclass
class SavedTable:
    """The saved rows of one table: node rows, edge rows or SQLite rows.

    ``key`` names a node table's primary key (SQLite: its key columns, or
    ``rowid``). Edge rows carry :data:`EDGE_FIELDS` beside their properties.
    """

    name: str
    kind: TableKind
    columns: list[tuple[str, str]]
    rows: list[dict[str, Any]] = field(default_factory=list)
    key: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "kind": self.kind,
            "columns": [list(column) for column in self.columns],
            "key": self.key,
            "rows": self.rows,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> SavedTable:
        return cls(
            name=str(data["name"]),
            kind=data["kind"],
            columns=[(str(name), str(kind)) for name, kind in data["columns"]],
            rows=list(data["rows"]),
            key=[str(k) for k in data.get("key", [])],
        )
