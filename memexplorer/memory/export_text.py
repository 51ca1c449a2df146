"""An export record's JSON text straight from its row, as ``json.dumps`` writes the record.

Building each record as a dict and encoding it parsed and re-encoded every
stored tags and metadata value (a million facts: two million parses). Here the
text is assembled from the row: strings, numbers and NULLs encoded as the json
module encodes them (``ensure_ascii``, ``", "`` and ``": "``), and each stored
JSON column's text kept per distinct stored value (agents repeat a few tags and
metadata shapes), in a cache emptied when it grows past :data:`CACHE_LIMIT`.
The same records as :mod:`.hierarchical_export` builds, byte for byte (a test
holds the two together).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from json.encoder import encode_basestring_ascii as quote
from typing import Any

from memexplorer.memory.export_schema import EdgeSpec
from memexplorer.memory.hierarchical_schema import loads_json

__all__ = ["StoredText", "edge_text", "episodic_text", "semantic_text"]

#: Distinct stored values kept encoded before the cache starts again.
CACHE_LIMIT = 65_536
_encode = json.JSONEncoder().encode


def value_text(value: Any) -> str:
    """``json.dumps(value)`` for a column's value, quickly for the common types."""
    kind = type(value)
    if kind is str:
        return quote(value)
    if value is None:
        return "null"
    return _encode(value)


class StoredText:
    """The JSON text of ``loads_json(stored, default)``, kept per stored value."""

    def __init__(self, default: Any) -> None:
        self.default = default
        self.known: dict[str | None, str] = {}

    def __call__(self, stored: str | None) -> str:
        text = self.known.get(stored)
        if text is None:
            if len(self.known) >= CACHE_LIMIT:
                self.known.clear()
            text = _encode(loads_json(stored, self.default))
            self.known[stored] = text
        return text


def semantic_text(tags: StoredText, metadata: StoredText) -> Callable[[list[Any]], str]:
    def text(r: list[Any]) -> str:
        return (
            f'{{"memory_id": {value_text(r[0])}, "concept": {value_text(r[1] or "")}, '
            f'"content": {value_text(r[2] or "")}, "confidence": {value_text(r[3])}, '
            f'"source_id": {value_text(r[4] or "")}, "tags": {tags(r[5])}, '
            f'"metadata": {metadata(r[6])}, "created_at": {value_text(r[7] or "")}, '
            f'"entity_name": {value_text(r[8] or "")}}}'
        )

    return text


def episodic_text(tags: StoredText, metadata: StoredText) -> Callable[[list[Any]], str]:
    def text(r: list[Any]) -> str:
        return (
            f'{{"memory_id": {value_text(r[0])}, "content": {value_text(r[1] or "")}, '
            f'"source_label": {value_text(r[2] or "")}, "tags": {tags(r[3])}, '
            f'"metadata": {metadata(r[4])}, "created_at": {value_text(r[5] or "")}}}'
        )

    return text


def edge_text(spec: EdgeSpec, metadata: StoredText) -> Callable[[list[Any]], str]:
    names = [(quote(name), kind, default) for name, kind, default in spec.fields]

    def text(row: list[Any]) -> str:
        parts = [f'{{"source_id": {value_text(row[0])}, "target_id": {value_text(row[1])}']
        for (name, kind, default), value in zip(names, row[2:], strict=True):
            if kind is dict:
                parts.append(f", {name}: {metadata(value)}")
            else:
                parts.append(f", {name}: {value_text(default if value is None else value)}")
        parts.append("}")
        return "".join(parts)

    return text
