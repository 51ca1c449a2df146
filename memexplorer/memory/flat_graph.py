"""Flat session memory in a Kuzu graph (``~/.amplihack/memory_graph.db``).

The schema is in flat_graph_schema.py (where it comes from is said there): a
memory belongs to the Session that has a CONTAINS_* / CONTRIBUTES_TO_* /
USES_* / CREATES_* edge to it, and its type is its node table. Tables an
existing store lacks are skipped, never created, unless the operator writes.
Expiry is ``expires_at <= now`` on the tables that have the column (Semantic
and Procedural memories never expire), applied inside every query.
"""

from __future__ import annotations

import json
import os
import uuid
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from memexplorer.memory.flat_graph_schema import (
    AGENT_DDL,
    MEMORY_TABLES,
    SESSION_DDL,
    MemoryTable,
    table_for_type,
)
from memexplorer.memory.flat_model import (
    DEFAULT_LEARNING_TYPE,
    DeletedSessions,
    FlatMemory,
    FlatSession,
    check_learning,
    iso,
    json_list,
    json_object,
    utc_now,
)
from memexplorer.memory.flat_target import require_flat_target
from memexplorer.storage.exceptions import (
    InvalidInputError,
    ReadOnlyStoreError,
    SchemaMismatchError,
)
from memexplorer.storage.graph_open import open_graph_store
from memexplorer.storage.graphdb import GraphStore, identifier

__all__ = ["GraphFlatStore", "live_agent_counts"]

_NUMBER = (int, float)


def _naive(moment: datetime) -> datetime:
    """Kuzu TIMESTAMPs are UTC without a zone."""
    return moment.astimezone(UTC).replace(tzinfo=None)


class _Catalog:
    """Which memory tables (and which of their columns) a store has."""

    def __init__(self, graph: GraphStore) -> None:
        names = set(graph.node_tables())
        rels = set(graph.rel_tables())
        self.has_session = "Session" in names
        self.has_agent = "Agent" in names
        self.tables: list[MemoryTable] = [
            t for t in MEMORY_TABLES if t.label in names and t.rel in rels and self.has_session
        ]
        self.columns = {t.label: {c for c, _ in graph.columns(t.label)} for t in self.tables}

    def live(self, table: MemoryTable, params: dict[str, Any]) -> str:
        """The not-expired condition for one table (adding ``$now`` when it needs it)."""
        if "expires_at" not in self.columns[table.label]:
            return "true"
        params["now"] = _naive(utc_now())
        return "(m.expires_at IS NULL OR m.expires_at > $now)"


def live_agent_counts(graph: GraphStore) -> dict[str, dict[str, int]]:
    """Live memories per agent and memory table, as inspection's summaries report them."""
    catalog = _Catalog(graph)
    counts: dict[str, dict[str, int]] = {}
    for table in catalog.tables:
        params: dict[str, Any] = {}
        live = catalog.live(table, params)
        rows = graph.rows(
            f"MATCH (m:{identifier(table.label)}) WHERE {live} RETURN m.agent_id, count(m)",
            params,
        )
        for agent, count in rows:
            counts.setdefault(agent or "", {})[table.label] = count
    return counts


def _importance(props: dict[str, Any], metadata: dict[str, Any]) -> int | None:
    """The node's own importance column, else the one kept in its metadata."""
    for value in (
        props.get("importance"), props.get("importance_score"), props.get("priority"),
        metadata.get("importance"),
    ):  # fmt: skip
        if isinstance(value, _NUMBER) and not isinstance(value, bool):
            return max(0, min(10, int(value)))
    return None


def _memory(table: MemoryTable, session_id: str | None, props: dict[str, Any]) -> FlatMemory:
    confidence = props.get("confidence_score")
    usage = props.get("usage_count")
    title = props.get("title") or props.get("concept") or props.get("procedure_name") or ""
    content = props.get("content") or props.get("description") or props.get("intention") or ""
    metadata = json_object(props.get("metadata"))
    return FlatMemory(
        memory_id=props["memory_id"],
        session_id=session_id or "",
        agent_id=props.get("agent_id") or "",
        memory_type=table.memory_type,
        title=title,
        content=content,
        importance=_importance(props, metadata),
        confidence=float(confidence) if isinstance(confidence, _NUMBER) else None,
        usage_count=usage if isinstance(usage, int) else None,
        created_at=iso(props.get("created_at")),
        accessed_at=iso(props.get("accessed_at")),
        expires_at=iso(props["expires_at"]) if props.get("expires_at") is not None else None,
        tags=json_list(props.get("tags")),
        metadata=metadata,
    )


def _node_values(table: MemoryTable, base: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    """Every column the reference writers set for this memory type."""
    now, importance = base["created_at"], extra.get("importance")
    per_type: dict[str, dict[str, Any]] = {
        "episodic": {
            "timestamp": now, "event_type": extra["metadata"].get("event_type", "general"),
            "emotional_valence": 0.0,
            "importance_score": float(importance) if importance is not None else None,
        },
        "semantic": {
            "concept": base["title"], "category": extra["metadata"].get("category", "session_end"),
            "confidence_score": extra.get("confidence", 1.0), "last_updated": now, "version": 1,
        },
        "procedural": {
            "procedure_name": base["title"], "description": base["content"], "steps": "[]",
            "preconditions": "[]", "postconditions": "[]", "success_rate": 1.0,
            "usage_count": 0, "last_used": now,
        },
        "prospective": {
            "intention": base["content"], "trigger_condition": "", "priority": "medium",
            "due_date": base.get("expires_at"), "status": "pending", "scope": "session",
            "completion_criteria": "",
        },
        "working": {
            "memory_type": "goal", "priority": importance or 0, "ttl_seconds": 3600,
        },
    }  # fmt: skip
    return {**base, **per_type[table.memory_type]}


_REL_VALUES: dict[str, dict[str, Any]] = {
    "CONTAINS_EPISODIC": {"sequence_number": 0},
    "CONTRIBUTES_TO_SEMANTIC": {"contribution_type": "created", "delta": "initial_creation"},
    "USES_PROCEDURE": {"success": True, "notes": ""},
    "CREATES_INTENTION": {},
    "CONTAINS_WORKING": {"activation_level": 1.0},
}


class GraphFlatStore:
    """One memory_graph.db, read-only unless opened with ``read_only=False``."""

    backend = "graph-db"

    def __init__(self, path: str | Path, *, read_only: bool = True) -> None:
        self.path = Path(path)
        self.read_only = read_only
        created = require_flat_target(self.path, "kuzu", create=not read_only)
        if created:
            self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        self._graph = open_graph_store(
            self.path, read_only=read_only, create="kuzu" if created else None
        )
        try:
            if created:
                os.chmod(self.path, 0o600)
                self._create_schema()
            self._catalog = _Catalog(self._graph)
            if not self._catalog.has_session and not created:
                raise SchemaMismatchError(
                    self.path,
                    "This Kuzu store holds no flat session memory (no Session table)",
                    hint="Flat graph memory lives in memory_graph.db; hierarchical stores "
                    "are under hierarchical_memory/.",
                )
        except BaseException:
            self._graph.close()
            raise

    def _create_schema(self) -> None:
        with self._graph.transaction():
            self._graph.execute(SESSION_DDL)
            self._graph.execute(AGENT_DDL)
            for table in MEMORY_TABLES:
                self._graph.execute(table.node_ddl)
            for table in MEMORY_TABLES:
                self._graph.execute(table.rel_ddl)

    # -- reading -----------------------------------------------------------------
    def _tables(self, memory_type: str | None) -> list[MemoryTable]:
        if memory_type is None:
            return self._catalog.tables
        table = table_for_type(memory_type)
        if table is None:
            valid = ", ".join(t.memory_type for t in MEMORY_TABLES)
            raise InvalidInputError(
                f"{memory_type!r} is not a graph-db memory type",
                hint=f"Use one of: {valid} (learnings are stored as semantic).",
            )
        return [table] if table in self._catalog.tables else []

    def _match(
        self, table: MemoryTable, session_id: str | None, agent_id: str | None
    ) -> tuple[str, dict[str, Any]]:
        """MATCH ... WHERE for live memories of one table, with optional filters."""
        params: dict[str, Any] = {}
        clauses = [self._catalog.live(table, params)]
        if agent_id is not None:
            clauses.append("m.agent_id = $agent_id")
            params["agent_id"] = agent_id
        node, rel = identifier(table.label), identifier(table.rel)
        if session_id is not None:
            params["session_id"] = session_id
            head = f"MATCH (s:Session {{session_id: $session_id}})-[:{rel}]->(m:{node})"
        else:
            head = f"MATCH (m:{node}) OPTIONAL MATCH (s:Session)-[:{rel}]->(m) WITH s, m"
        return f"{head} WHERE {' AND '.join(clauses)}", params

    def list_sessions(self) -> list[FlatSession]:
        """Every session, most recently used first, with live counts per agent."""
        agents: dict[str, dict[str, int]] = {}
        for table in self._catalog.tables:
            match, params = self._match(table, None, None)
            for session, agent, count in self._graph.rows(
                f"{match} AND s IS NOT NULL RETURN s.session_id, m.agent_id, count(m)", params
            ):
                per = agents.setdefault(session, {})
                per[agent or ""] = per.get(agent or "", 0) + count
        if not self._catalog.has_session:
            return []
        rows = self._graph.rows(
            "MATCH (s:Session) RETURN s.session_id, s.created_at, s.last_accessed, s.metadata "
            "ORDER BY s.last_accessed DESC, s.session_id"
        )
        return [
            FlatSession(
                sid, iso(created), iso(accessed),
                sum(agents.get(sid, {}).values()), dict(sorted(agents.get(sid, {}).items())),
                json_object(metadata),
            )
            for sid, created, accessed, metadata in rows
        ]  # fmt: skip

    def list_memories(
        self,
        *,
        session_id: str | None = None,
        memory_type: str | None = None,
        agent_id: str | None = None,
        limit: int | None = None,
        offset: int = 0,
    ) -> list[FlatMemory]:
        """Live memories of every type, most recently accessed first, one page at a time."""
        offset = max(offset, 0)
        found: list[tuple[Any, str, FlatMemory]] = []
        for table in self._tables(memory_type):
            match, params = self._match(table, session_id, agent_id)
            query = f"{match} RETURN s.session_id, m ORDER BY m.accessed_at DESC, m.memory_id"
            if limit is not None:
                query += " LIMIT $top"
                params["top"] = offset + max(limit, 0)
            for session, node in self._graph.rows(query, params):
                memory = _memory(table, session, node)
                found.append((node.get("accessed_at"), memory.memory_id, memory))
        found.sort(key=lambda item: item[1])
        found.sort(key=lambda item: item[0] or datetime.min, reverse=True)
        page = found[offset:] if limit is None else found[offset : offset + max(limit, 0)]
        return [memory for _, _, memory in page]

    def count_memories(
        self,
        *,
        session_id: str | None = None,
        memory_type: str | None = None,
        agent_id: str | None = None,
    ) -> int:
        total = 0
        for table in self._tables(memory_type):
            match, params = self._match(table, session_id, agent_id)
            total += int(self._graph.scalar(f"{match} RETURN count(m)", params) or 0)
        return total

    def agent_counts(self) -> dict[str, int]:
        """collect_agent_counts: live memories per agent, over every memory table."""
        totals: dict[str, int] = {}
        for agent, per_table in live_agent_counts(self._graph).items():
            if agent:
                totals[agent] = sum(per_table.values())
        return dict(sorted((a, n) for a, n in totals.items() if n > 0))

    def memory_types(self) -> list[str]:
        return [t.memory_type for t in self._catalog.tables]

    # -- writing -----------------------------------------------------------------
    def _require_writable(self) -> None:
        if self.read_only:
            raise ReadOnlyStoreError(self.path, "This store is open read-only")

    def _is_duplicate(self, session_id: str, agent_id: str, content: str) -> bool:
        for table in self._catalog.tables:
            rel, node = identifier(table.rel), identifier(table.label)
            hits = self._graph.scalar(
                f"MATCH (s:Session {{session_id: $sid}})-[:{rel}]->(m:{node}) "
                "WHERE m.agent_id = $agent AND m.content = $content RETURN count(m)",
                {"sid": session_id, "agent": agent_id, "content": content},
            )
            if hits:
                return True
        return False

    def _touch(
        self, label: str, key: str, value: str, fields: dict[str, Any], now: datetime
    ) -> None:
        """Create the Session or Agent node, or mark it used now."""
        node = identifier(label)
        if self._graph.scalar(f"MATCH (n:{node} {{{key}: $id}}) RETURN count(n)", {"id": value}):
            stamp = "last_accessed" if label == "Session" else "last_used"
            self._graph.execute(
                f"MATCH (n:{node} {{{key}: $id}}) SET n.{stamp} = $now", {"id": value, "now": now}
            )
            return
        values = {key: value, **fields}
        columns = ", ".join(f"{identifier(c)}: ${c}" for c in values)
        self._graph.execute(f"CREATE (n:{node} {{{columns}}})", values)

    def store_session_learning(
        self,
        session_id: str,
        agent_id: str,
        content: str,
        *,
        title: str = "",
        memory_type: str = DEFAULT_LEARNING_TYPE,
        importance: int | None = None,
        confidence: float | None = None,
        tags: Iterable[str] = (),
        metadata: dict[str, Any] | None = None,
        expires_at: datetime | None = None,
    ) -> str | None:
        """Store one memory in its type's table; an identical (session, agent,
        content) already stored gives None."""
        self._require_writable()
        check_learning(session_id, agent_id, content, importance, confidence)
        table = self._tables(memory_type or DEFAULT_LEARNING_TYPE)
        if not table:
            raise SchemaMismatchError(self.path, f"This store has no table for {memory_type!r}")
        target = table[0]
        columns = self._catalog.columns[target.label]
        if expires_at is not None and "expires_at" not in columns:
            raise InvalidInputError(
                f"{target.memory_type} memories never expire in graph-db",
                hint="Only episodic, prospective and working memories take expires_at.",
            )
        now = _naive(utc_now())
        extra = {"metadata": dict(metadata or {}), "importance": importance}
        has_column = {"importance_score", "priority"} & columns
        if importance is not None and (not has_column or target.memory_type == "prospective"):
            # Semantic and procedural nodes have no importance column (and a
            # prospective priority is a word): keep the number in metadata.
            extra["metadata"]["importance"] = importance
        if confidence is not None:
            extra["confidence"] = float(confidence)
        base = {
            "memory_id": str(uuid.uuid4()), "title": title or content.strip()[:50],
            "content": content, "metadata": json.dumps(extra["metadata"]),
            "tags": json.dumps(list(tags)) if tags else "", "created_at": now,
            "accessed_at": now, "agent_id": agent_id,
            "expires_at": _naive(expires_at) if expires_at else None,
        }  # fmt: skip
        values = {k: v for k, v in _node_values(target, base, extra).items() if k in columns}
        with self._graph.transaction():
            if self._is_duplicate(session_id, agent_id, content):
                return None
            session_fields = {
                "start_time": now, "status": "active", "created_at": now,
                "last_accessed": now, "metadata": "{}",
            }  # fmt: skip
            self._touch("Session", "session_id", session_id, session_fields, now)
            if self._catalog.has_agent:
                agent_fields = {"name": agent_id, "first_used": now, "last_used": now}
                self._touch("Agent", "agent_id", agent_id, agent_fields, now)
            node = identifier(target.label)
            assign = ", ".join(f"{identifier(c)}: ${c}" for c in values)
            self._graph.execute(f"CREATE (m:{node} {{{assign}}})", values)
            rel_values = dict(_REL_VALUES[target.rel])
            if target.rel != "CONTAINS_EPISODIC" and target.rel != "CONTAINS_WORKING":
                rel_values["timestamp"] = now
            props = ", ".join(f"{identifier(k)}: $r_{k}" for k in rel_values)
            self._graph.execute(
                f"MATCH (s:Session {{session_id: $sid}}), (m:{node} {{memory_id: $mid}}) "
                f"CREATE (s)-[:{identifier(target.rel)} {{{props}}}]->(m)",
                {"sid": session_id, "mid": values["memory_id"],
                 **{f"r_{k}": v for k, v in rel_values.items()}},
            )  # fmt: skip
        return str(values["memory_id"])

    def delete_sessions(self, session_ids: Iterable[str]) -> DeletedSessions:
        """Remove these sessions and all their memories (expired ones too), atomically."""
        self._require_writable()
        removed: list[str] = []
        memories = 0
        with self._graph.transaction():
            for session_id in dict.fromkeys(session_ids):
                params = {"sid": session_id}
                if not self._graph.scalar(
                    "MATCH (s:Session {session_id: $sid}) RETURN count(s)", params
                ):
                    continue
                for table in self._catalog.tables:
                    pattern = (
                        f"MATCH (s:Session {{session_id: $sid}})-[:{identifier(table.rel)}]->"
                        f"(m:{identifier(table.label)})"
                    )
                    memories += int(self._graph.scalar(f"{pattern} RETURN count(m)", params) or 0)
                    self._graph.execute(f"{pattern} DETACH DELETE m", params)
                self._graph.execute("MATCH (s:Session {session_id: $sid}) DETACH DELETE s", params)
                removed.append(session_id)
        return DeletedSessions(removed, memories)

    def close(self) -> None:
        self._graph.close()

    def __enter__(self) -> GraphFlatStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
