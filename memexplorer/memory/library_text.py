"""How amplihack-memory-lib reads a query's names and its stored JSON, as its code does.

Why apart: the ``library`` profile must find the same entity candidates and
decode the same columns (and fail on the same rows) as the library's
retrieve_subgraph; these are pure functions of text.
"""

from __future__ import annotations

import base64
import json
import re
from typing import Any

__all__ = ["DecodeFailed", "decode", "library_entity_candidates"]

_ENTITY_CANDIDATE = re.compile(
    r"\b("
    r"[A-Z][a-z]*(?:['\u2019\-][A-Z]?[a-z]+)+(?:\s+(?:[A-Z][a-z]+(?:['\u2019\-][A-Z]?[a-z]+)?))*"
    r"|"
    r"[A-Z][a-z]+(?:\s+(?:[A-Z][a-z]+(?:['\u2019\-][A-Z]?[a-z]+)?))*"
    r")\b"
)


def library_entity_candidates(query: str) -> list[str]:
    """The names the library's entity seed search looks up, in its order (repeats kept).

    Any capitalised word counts (the second alternative repeats with ``*``, so
    "What" is a candidate); without one, every lowercased word longer than
    three characters with ``'`` and ``s`` stripped from both ends.
    """
    found = _ENTITY_CANDIDATE.findall(query)
    if not found:
        found = [w.strip("'s") for w in query.lower().split() if len(w) > 3]
    return [c.lower() for c in found if len(c.lower()) > 2]


class DecodeFailed(Exception):
    """A stored JSON column the library's decoder raises on (Kuzu era)."""


def decode(raw: Any, fallback: Any, ladybug: bool) -> Any:
    """The library's decoder: ``json.loads`` (4ae0813) or ``_decode_structured`` (b3033f7)."""
    if not raw:
        return fallback
    if not ladybug:
        try:
            return json.loads(raw)
        except (TypeError, ValueError) as exc:
            raise DecodeFailed from exc
    try:
        return json.loads(base64.b64decode(raw).decode())
    except Exception:
        try:
            return json.loads(raw)
        except Exception:
            return fallback
