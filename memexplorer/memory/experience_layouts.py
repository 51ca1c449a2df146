"""The two Experience layouts found on disk, and how to tell them apart.

* ``"amplihack"``: the reference library's ExperienceStore (seed 000): an
  ``Experience`` node table (or ``experiences`` SQLite table) keyed by
  ``experience_id`` with ``agent_name``, ``experience_type``, ``confidence``,
  epoch-second timestamps and a ``compressed`` flag; SIMILAR_TO and LEADS_TO.
* ``"seed-004"``: the schema other programs write (seed 004): ``Experience``
  keyed by a UUID ``id`` with ``agent_id``, ``action``, ``importance`` (1-10)
  and a TIMESTAMP; an optional ``Agent`` node; FOLLOWED_BY and SIMILAR_TO.

:func:`detect_layout` tells them apart from column names alone. A seed-004
record is :class:`.seed004_record.Seed004Experience`; :mod:`.seed004_store`
reads and writes such stores.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

__all__ = ["AMPLIHACK_COLUMNS", "SEED004_COLUMNS", "Layout", "detect_layout"]

Layout = Literal["amplihack", "seed-004", "unknown"]

#: Columns of the reference's Experience table / experiences table, in order.
AMPLIHACK_COLUMNS = (
    "experience_id", "agent_name", "experience_type", "context", "outcome",
    "confidence", "timestamp", "metadata", "tags", "compressed",
)  # fmt: skip
#: Columns of seed 004's Experience node, in order.
SEED004_COLUMNS = (
    "id", "agent_id", "context", "action", "outcome", "timestamp", "importance", "tags", "metadata",
)  # fmt: skip


def detect_layout(columns: Iterable[str], tables: Iterable[str] = ()) -> Layout:
    """Which layout an Experience table with these columns follows.

    Seed 004's marks are ``action``/``importance``/``agent_id`` or an ``Agent``
    table; the reference's are ``experience_id`` with ``agent_name``.
    """
    cols = set(columns)
    if {"action", "importance"} & cols or ("id" in cols and "agent_id" in cols):
        return "seed-004"
    if "Agent" in set(tables) and "experience_id" not in cols:
        return "seed-004"
    if {"experience_id", "agent_name", "experience_type"} <= cols:
        return "amplihack"
    return "unknown"
