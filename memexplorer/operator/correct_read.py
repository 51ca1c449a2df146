"""Plan a correction from the store as it is now: read-only, nothing written.

The call is the same for every writer: ``store_knowledge(content, concept,
confidence, tags=<the old fact's tags>, temporal_metadata={"temporal_index": N})``
with N one more than the highest temporal_index among the agent's facts of the
same concept (1 when none has one), so the corrected fact is the newest value
of its concept and the writer's own rules decide what it supersedes.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from memexplorer.memory.hierarchical_memory import HierarchicalMemory
from memexplorer.memory.hierarchical_schema import loads_json
from memexplorer.memory.inspection import open_sqlite_readonly
from memexplorer.memory.temporal import temporal_index_of
from memexplorer.operator.agent_memory import agent_store_path
from memexplorer.operator.correct_plan import CorrectionPlan, CorrectionRequest, OldFact
from memexplorer.operator.correct_rules import (
    Fact,
    library_writes,
    memexplorer_writes,
    old_fact,
    rs_writes,
    store_writer,
)
from memexplorer.operator.retrieval_rs_sqlite import rs_query_store
from memexplorer.storage.exceptions import InvalidInputError, NotAStoreError, StoreNotFoundError
from memexplorer.storage.sqlite_db import SqliteStatementError
from memexplorer.storage.stores import sniff

__all__ = ["correction_request", "correction_store", "fact_to_correct", "plan_correction"]

_GRAPH_COLUMNS = "m.memory_id, m.concept, m.content, m.confidence, m.tags, m.metadata, m.created_at"
_GRAPH_FACTS = f"""
    MATCH (m:SemanticMemory) WHERE m.agent_id = $agent
    RETURN {_GRAPH_COLUMNS} ORDER BY offset(id(m))
"""
_GRAPH_FACT = f"""
    MATCH (m:SemanticMemory) WHERE m.agent_id = $agent AND m.memory_id = $id
    RETURN {_GRAPH_COLUMNS}
"""
_SQLITE_COLUMNS = "memory_id, concept, content, confidence, tags, metadata, created_at"
_SQLITE_FACTS = f"SELECT {_SQLITE_COLUMNS} FROM semantic_memories WHERE agent_id = ? ORDER BY rowid"
_SQLITE_FACT = (
    f"SELECT {_SQLITE_COLUMNS} FROM semantic_memories WHERE agent_id = ? AND memory_id = ?"
)


def fact_to_correct(store: Path, agent: str, memory_id: str) -> OldFact:
    """The fact as it is now (to fill in the correction's form), read-only."""
    if sniff(store).engine == "sqlite":
        connection = open_sqlite_readonly(store)
        try:
            rows = connection.execute(_SQLITE_FACT, (agent, memory_id)).fetchall()
        finally:
            connection.close()
    else:
        with HierarchicalMemory(agent, store, mode="read") as memory:
            _require_facts(memory.graph, store)
            rows = memory.graph.rows(_GRAPH_FACT, {"agent": agent, "id": memory_id})
    if not rows:
        raise InvalidInputError(f"No fact {memory_id} of agent {agent} in {store}")
    return old_fact(_fact(rows[0]))


#: The SemanticMemory columns a correction reads and writes (HierarchicalMemory's).
_FACT_COLUMNS = {"memory_id", "agent_id", "concept", "content", "confidence", "tags",
                 "metadata", "created_at", "source_id", "entity_name"}  # fmt: skip


def _require_facts(graph: Any, store: Path) -> None:
    """HierarchicalMemory's SemanticMemory table, or a clear refusal (a cognitive-memory
    store has a SemanticMemory table of other columns)."""
    if graph.has_table("SemanticMemory"):
        missing = _FACT_COLUMNS - {name for name, _ in graph.columns("SemanticMemory")}
        if not missing:
            return
        what = f"its SemanticMemory table has no {', '.join(sorted(missing))}"
    else:
        what = "it has no SemanticMemory table"
    raise NotAStoreError(
        store, f"This store is not a HierarchicalMemory store ({what}): only its facts can "
        "be corrected", hint="Give the agent's hierarchical_memory store (--store or --home).",
    )  # fmt: skip


def correction_store(agent: str, store: str | Path | None, home: str | Path | None) -> Path:
    """The store an operator means, as ``chain`` and ``query`` find it."""
    found = rs_query_store(agent, store, home)
    path = found if found is not None else agent_store_path(agent, store, home)
    if not path.exists():
        raise StoreNotFoundError(path, f"No HierarchicalMemory store for agent {agent}",
                                 hint="Check the agent name or give --store.")  # fmt: skip
    return path


def correction_request(
    agent: str, memory_id: str, content: str, concept: str | None = None,
    confidence: float | None = None,
) -> CorrectionRequest:  # fmt: skip
    """A checked request, its new id and time fixed now."""
    if not isinstance(content, str) or not content.strip():
        raise InvalidInputError("The corrected content is empty", hint="Give --content TEXT.")
    if confidence is not None and not 0.0 <= float(confidence) <= 1.0:
        raise InvalidInputError(f"confidence must be in [0, 1], got {confidence}")
    return CorrectionRequest(agent, memory_id, content.strip(), concept, confidence,
                             now_ns=time.time_ns())  # fmt: skip


def _fact(row: Any) -> Fact:
    return {"id": row[0], "concept": row[1] or "", "content": row[2] or "",
            "confidence": row[3], "tags": loads_json(row[4], []),
            "metadata": loads_json(row[5], {}), "created_at": row[6] or ""}  # fmt: skip


def _call(request: CorrectionRequest, old: Fact, facts: list[Fact]) -> dict[str, Any]:
    concept = old["concept"] if request.concept is None else request.concept
    key = " ".join(concept.lower().split())
    indexes = [temporal_index_of(f["metadata"]) for f in facts
               if " ".join((f["concept"] or "").lower().split()) == key]  # fmt: skip
    confidence = old["confidence"] if request.confidence is None else request.confidence
    return {"content": request.content, "concept": concept,
            "confidence": float(confidence if confidence is not None else 0.8),
            "tags": list(old["tags"]) if isinstance(old["tags"], list) else [],
            "temporal_metadata": {"temporal_index": max([0, *indexes]) + 1}}  # fmt: skip


def _the_fact(facts: list[Fact], request: CorrectionRequest, store: Path) -> Fact:
    for fact in facts:
        if fact["id"] == request.memory_id:
            return fact
    raise InvalidInputError(
        f"No fact {request.memory_id} of agent {request.agent} in {store}",
        hint="Copy the memory_id from the app or `memexplorer query`.",
    )


def plan_correction(store: Path, request: CorrectionRequest) -> CorrectionPlan:
    """What correcting ``request.memory_id`` writes into ``store``, read-only."""
    engine = sniff(store).engine
    if engine == "sqlite":
        return _plan_sqlite(store, request)
    with HierarchicalMemory(request.agent, store, mode="read") as memory:
        graph = memory.graph
        _require_facts(graph, store)
        facts = [_fact(r) for r in graph.rows(_GRAPH_FACTS, {"agent": request.agent})]
        old = _the_fact(facts, request, store)
        call = _call(request, old, facts)
        writer = store_writer(store, engine, set(graph.rel_tables()))
        changes = []
        if writer == "memexplorer":
            recent = list(memory._recent_facts(graph))
            node, edges, changes = memexplorer_writes(graph, request, call, recent)
        elif writer == "amplihack-rs":
            node, edges = rs_writes(request, call, facts)
        else:
            node, edges = library_writes(graph, writer, request, call, facts)
    return CorrectionPlan(store, engine, writer, request.agent, old_fact(old), node, call,
                          edges, changes)  # fmt: skip


def _plan_sqlite(store: Path, request: CorrectionRequest) -> CorrectionPlan:
    connection = open_sqlite_readonly(store)
    try:
        try:
            rows = connection.execute(_SQLITE_FACTS, (request.agent,)).fetchall()
        except SqliteStatementError:
            raise NotAStoreError(store, "This SQLite file is not an amplihack-rs "
                                 "hierarchical store") from None  # fmt: skip
    finally:
        connection.close()
    facts = [_fact(r) for r in rows]
    old = _the_fact(facts, request, store)
    call = _call(request, old, facts)
    node, edges = rs_writes(request, call, facts)
    return CorrectionPlan(store, "sqlite", "amplihack-rs", request.agent, old_fact(old), node,
                          call, edges, [])  # fmt: skip
