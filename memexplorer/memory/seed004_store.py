"""Seed-004 experience stores: the schema, seed 004's read patterns and a validated
write, through the engine's graph seam (every query parameterised).
"""

from __future__ import annotations

import json
from contextlib import AbstractContextManager
from datetime import datetime
from typing import Any, Protocol

from memexplorer.memory.seed004_record import Seed004Experience
from memexplorer.storage.exceptions import InvalidExperienceError

__all__ = ["add_seed004", "create_seed004_schema", "followed_by", "read_seed004", "seed004_agent"]


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
