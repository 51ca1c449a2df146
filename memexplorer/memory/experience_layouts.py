"""The two Experience layouts found on disk, and the seed-004 one in full.

* ``"amplihack"``: the reference library's ExperienceStore (seed 000): an
  ``Experience`` node table (or ``experiences`` SQLite table) keyed by
  ``experience_id`` with ``agent_name``, ``experience_type``, ``confidence``,
  epoch-second timestamps and a ``compressed`` flag; SIMILAR_TO and LEADS_TO.
* ``"seed-004"``: the schema other programs write (seed 004): ``Experience``
  keyed by a UUID ``id`` with ``agent_id``, ``action``, ``importance`` (1-10)
  and a TIMESTAMP; an optional ``Agent`` node; FOLLOWED_BY and SIMILAR_TO.

:func:`detect_layout` tells them apart from column names alone.
:class:`Seed004Experience` is a seed-004 record with that seed's validation
rules; :func:`read_seed004` and :func:`add_seed004` read and write such a
store through the engine's graph seam (every query parameterised).
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterable
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal, Protocol

from memexplorer.memory.experience import (
    CONTEXT_MAX_LENGTH,
    OUTCOME_MAX_LENGTH,
    Experience,
    ExperienceType,
)
from memexplorer.storage.exceptions import InvalidExperienceError

__all__ = [
    "AMPLIHACK_COLUMNS",
    "SEED004_COLUMNS",
    "Layout",
    "Seed004Experience",
    "add_seed004",
    "create_seed004_schema",
    "detect_layout",
    "followed_by",
    "read_seed004",
    "seed004_agent",
]

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


# -- seed-004 records ----------------------------------------------------------------------


def _is_uuid(value: object) -> bool:
    if not isinstance(value, str):
        return False
    try:
        uuid.UUID(value)
    except ValueError:
        return False
    return True


def _json_or_none(name: str, value: Any, kind: type) -> Any:
    """Seed 004: tags is a JSON array or null, metadata a JSON object or null.
    A value may come as text (as stored) or already parsed."""
    if value is None:
        return None
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            raise InvalidExperienceError(f"{name} is not valid JSON") from None
    if not isinstance(value, kind):
        expected = "array" if kind is list else "object"
        raise InvalidExperienceError(f"{name} must be a JSON {expected} or null")
    return value


@dataclass
class Seed004Experience:
    """One experience in seed 004's layout, validated on creation.

    Required (seed 004 "Schema Validation"): ``id`` a UUID; ``agent_id``,
    ``context``, ``action`` and ``outcome`` non-empty strings; ``timestamp`` a
    datetime; ``importance`` an integer 1-10. Optional: ``tags`` a JSON array
    and ``metadata`` a JSON object, or None (either may be given as JSON text).
    """

    agent_id: str
    context: str
    action: str
    outcome: str
    importance: int
    timestamp: datetime = field(default_factory=datetime.now)
    id: str = field(default_factory=lambda: str(uuid.uuid4()))
    tags: list[Any] | None = None
    metadata: dict[str, Any] | None = None

    def __post_init__(self) -> None:
        if not _is_uuid(self.id):
            raise InvalidExperienceError(f"id must be a valid UUID, got {self.id!r}")
        for name in ("agent_id", "context", "action", "outcome"):
            value = getattr(self, name)
            if not isinstance(value, str) or not value.strip():
                raise InvalidExperienceError(f"{name} must be a non-empty string")
        if not isinstance(self.timestamp, datetime):
            raise InvalidExperienceError("timestamp must be a valid timestamp (datetime)")
        importance = self.importance
        if isinstance(importance, bool) or not isinstance(importance, int):
            raise InvalidExperienceError(f"importance must be an integer, got {importance!r}")
        if not 1 <= importance <= 10:
            raise InvalidExperienceError(f"importance must be between 1 and 10, got {importance}")
        self.tags = _json_or_none("tags", self.tags, list)
        self.metadata = _json_or_none("metadata", self.metadata, dict)

    def to_experience(self) -> Experience:
        """This record as the reference API's Experience (lossless where it can be).

        context is kept; outcome reads ``"<action> -> <outcome>"``; confidence
        is importance / 10; the type comes from ``metadata["experience_type"]``
        when it names one, else INSIGHT. The seed-004 id, action and importance
        go into metadata (``seed004_id``, ``action``, ``importance``). Text longer
        than the Experience limits is kept whole (as stored), not cut.
        """
        metadata = dict(self.metadata or {})
        try:
            kind = ExperienceType(metadata.get("experience_type", "insight"))
        except ValueError:
            kind = ExperienceType.INSIGHT
        metadata.update(seed004_id=self.id, action=self.action, importance=self.importance)
        fields = {
            "experience_type": kind,
            "context": self.context,
            "outcome": f"{self.action} -> {self.outcome}",
            "confidence": self.importance / 10,
            "timestamp": self.timestamp,
            "experience_id": self.id,
            "metadata": metadata,
            "tags": [str(t) for t in self.tags or []],
        }
        if len(self.context) <= CONTEXT_MAX_LENGTH and len(fields["outcome"]) <= OUTCOME_MAX_LENGTH:
            return Experience(**fields)
        restored = Experience.__new__(Experience)
        restored.__dict__.update(fields)
        return restored


# -- seed-004 stores -------------------------------------------------------------------------


class Graph(Protocol):
    """The slice of the graph seam these functions use (KuzuStore, SharedGraph)."""

    def rows(
        self, cypher: str, params: dict[str, Any] | None = None, *, reuse: bool = False
    ) -> list[list[Any]]: ...

    def execute(
        self, cypher: str, params: dict[str, Any] | None = None, *, reuse: bool = False
    ) -> None: ...

    def transaction(self) -> AbstractContextManager[Any]: ...


_SCHEMA = (
    """CREATE NODE TABLE IF NOT EXISTS Experience(
        id STRING, agent_id STRING, context STRING, action STRING, outcome STRING,
        timestamp TIMESTAMP, importance INT64, tags STRING, metadata STRING,
        PRIMARY KEY (id))""",
    """CREATE NODE TABLE IF NOT EXISTS Agent(
        agent_id STRING, first_seen TIMESTAMP, last_active TIMESTAMP,
        total_experiences INT64, PRIMARY KEY (agent_id))""",
    """CREATE REL TABLE IF NOT EXISTS FOLLOWED_BY(
        FROM Experience TO Experience, time_delta INT64, same_context BOOLEAN)""",
    """CREATE REL TABLE IF NOT EXISTS SIMILAR_TO(
        FROM Experience TO Experience, similarity_score DOUBLE)""",
)


def create_seed004_schema(graph: Graph) -> None:
    """Seed 004's tables. Its three secondary indexes are left out: Kuzu 0.11
    has no CREATE INDEX (primary keys are its only index)."""
    for statement in _SCHEMA:
        graph.execute(statement)


_RETURN = (
    "RETURN e.id, e.agent_id, e.context, e.action, e.outcome, e.timestamp, "
    "e.importance, e.tags, e.metadata"
)


def _record(row: list[Any]) -> Seed004Experience:
    """A stored row as a record; values that break the rules raise, naming the id."""
    try:
        return Seed004Experience(
            id=row[0], agent_id=row[1], context=row[2], action=row[3], outcome=row[4],
            timestamp=row[5], importance=row[6], tags=row[7], metadata=row[8],
        )  # fmt: skip
    except InvalidExperienceError as exc:
        raise InvalidExperienceError(f"stored experience {row[0]!r}: {exc.message}") from None


def read_seed004(
    graph: Graph,
    agent_id: str,
    *,
    limit: int | None = None,
    min_importance: int = 1,
    since: datetime | None = None,
    keyword: str = "",
    strict: bool = False,
) -> list[Seed004Experience]:
    """One agent's seed-004 experiences, newest first (seed 004's query patterns:
    recent, importance filter, context keyword).

    Rows that break seed 004's rules are skipped, or raise with ``strict``.
    """
    where = ["e.agent_id = $agent", "e.importance >= $min_importance"]
    params: dict[str, Any] = {"agent": agent_id, "min_importance": int(min_importance)}
    if since is not None:
        where.append("e.timestamp >= $since")
        params["since"] = since
    if keyword:
        where.append("lower(e.context) CONTAINS lower($keyword)")
        params["keyword"] = keyword
    cypher = f"MATCH (e:Experience) WHERE {' AND '.join(where)} {_RETURN} ORDER BY e.timestamp DESC"
    if limit is not None:
        cypher += " LIMIT $limit"
        params["limit"] = int(limit)
    out: list[Seed004Experience] = []
    for row in graph.rows(cypher, params):
        try:
            out.append(_record(row))
        except InvalidExperienceError:
            if strict:
                raise
    return out


def followed_by(graph: Graph, experience_id: str) -> list[tuple[Seed004Experience, int, bool]]:
    """The experiences that follow one (seed 004 pattern 5): each with the
    edge's time_delta (seconds) and same_context flag."""
    rows = graph.rows(
        "MATCH (a:Experience)-[r:FOLLOWED_BY]->(e:Experience) WHERE a.id = $id "
        f"{_RETURN}, r.time_delta, r.same_context ORDER BY e.timestamp",
        {"id": experience_id},
    )
    return [(_record(row[:9]), int(row[9] or 0), bool(row[10])) for row in rows]


def seed004_agent(graph: Graph, agent_id: str) -> dict[str, Any] | None:
    """The optional Agent node of one agent, or None."""
    rows = graph.rows(
        "MATCH (a:Agent) WHERE a.agent_id = $agent "
        "RETURN a.first_seen, a.last_active, a.total_experiences",
        {"agent": agent_id},
    )
    if not rows:
        return None
    first, last, total = rows[0]
    return {"agent_id": agent_id, "first_seen": first, "last_active": last,
            "total_experiences": int(total or 0)}  # fmt: skip


def add_seed004(graph: Graph, record: Seed004Experience, *, follows: str | None = None) -> str:
    """Write one validated record, keep its Agent node current, and link it
    FOLLOWED_BY from ``follows`` (an earlier experience's id) if given."""
    if not isinstance(record, Seed004Experience):
        raise TypeError("record must be a Seed004Experience")
    Seed004Experience.__post_init__(record)  # fields are mutable: check again
    with graph.transaction():
        earlier: list[list[Any]] = []
        if follows:
            earlier = graph.rows(
                "MATCH (a:Experience) WHERE a.id = $id RETURN a.timestamp, a.context",
                {"id": follows},
            )
            if not earlier:
                raise InvalidExperienceError(f"follows names no stored experience: {follows!r}")
        graph.execute(
            "CREATE (:Experience {id: $id, agent_id: $agent, context: $context, action: $action, "
            "outcome: $outcome, timestamp: $ts, importance: $importance, tags: $tags, "
            "metadata: $metadata})",
            {
                "id": record.id, "agent": record.agent_id, "context": record.context,
                "action": record.action, "outcome": record.outcome, "ts": record.timestamp,
                "importance": record.importance,
                "tags": None if record.tags is None else json.dumps(record.tags),
                "metadata": None if record.metadata is None else json.dumps(record.metadata),
            },
        )  # fmt: skip
        has_agent = any(row[1] == "Agent" for row in graph.rows("CALL show_tables() RETURN *"))
        if has_agent:
            graph.execute(
                "MERGE (a:Agent {agent_id: $agent}) "
                "ON CREATE SET a.first_seen = $ts, a.last_active = $ts, a.total_experiences = 1 "
                "ON MATCH SET a.total_experiences = a.total_experiences + 1, "
                "a.last_active = CASE WHEN a.last_active < $ts THEN $ts ELSE a.last_active END",
                {"agent": record.agent_id, "ts": record.timestamp},
            )
        if earlier:
            then, context = earlier[0]
            graph.execute(
                "MATCH (a:Experience), (b:Experience) WHERE a.id = $from AND b.id = $to "
                "CREATE (a)-[:FOLLOWED_BY {time_delta: $delta, same_context: $same}]->(b)",
                {"from": follows, "to": record.id, "same": context == record.context,
                 "delta": int((record.timestamp - then).total_seconds())},
            )  # fmt: skip
    return record.id
