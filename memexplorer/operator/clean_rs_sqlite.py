"""Clean plans for amplihack-rs's SQLite hierarchical store (``<agent>.db``).

Facts and episodes are selected as in a hierarchical graph store: agent
(``agent_id``), PATTERN over a fact's ``concept`` (episodes have none, so only
``*`` takes them), age (``created_at``) and ids. The store has no foreign keys,
so the edges that name a removed row at either end go with it, as a graph
store's DETACH DELETE takes them; they are saved in the backup like the rows.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from memexplorer.memory.rs_sqlite_read import agents_of
from memexplorer.memory.rs_sqlite_schema import (
    EDGE_TABLES,
    EPISODIC_TABLE,
    NODE_TABLES,
    SEMANTIC_TABLE,
)
from memexplorer.operator.clean_plan import Plan
from memexplorer.operator.clean_selection import BadSelectionError, Selection
from memexplorer.storage.sqlite_db import SqliteConnection, SqliteCursor

__all__ = ["plan_rs_sqlite"]

_CHUNK = 400


def _tables(db: SqliteConnection, selection: Selection) -> list[str]:
    if selection.table is not None and selection.table not in NODE_TABLES:
        raise BadSelectionError(
            f"No table {selection.table!r} to clean here; this store's node tables are: "
            + ", ".join(NODE_TABLES)
        )
    if selection.agent is not None and selection.agent not in agents_of(db):
        raise BadSelectionError(
            f"No agent {selection.agent!r} in this store; agents here: "
            + (", ".join(agents_of(db)) or "none")
        )
    return [selection.table] if selection.table else list(NODE_TABLES)


def _rows(db: SqliteConnection, table: str, agent: str | None) -> SqliteCursor:
    label = "concept, content" if table == SEMANTIC_TABLE else "'', content"
    where, params = ("WHERE agent_id = ?", [agent]) if agent else ("", [])
    return db.execute(
        f"SELECT memory_id, agent_id, {label}, created_at FROM {table} {where} "
        "ORDER BY created_at, memory_id",
        params,
    )


def _edges(db: SqliteConnection, plan: Plan, ids: list[str]) -> None:
    """Every edge naming one of ``ids`` at either end, by its row id."""
    for edge in EDGE_TABLES:
        found: set[int] = set()
        for start in range(0, len(ids), _CHUNK):
            chunk = ids[start : start + _CHUNK]
            marks = ", ".join("?" * len(chunk))
            found |= {
                row[0]
                for row in db.execute(
                    f"SELECT id FROM {edge.name} WHERE source_id IN ({marks}) "
                    f"OR target_id IN ({marks})",
                    chunk + chunk,
                )
            }
        if found:
            plan.targets[edge.name] = ("id", sorted(found))
            plan.edges[edge.rel] = len(found)


def plan_rs_sqlite(db: SqliteConnection, selection: Selection, now: datetime, size: int) -> Plan:
    """Which facts, episodes and edges the selection removes (read-only)."""
    plan = Plan("hierarchical")
    cutoff = selection.cutoff(now)
    wanted = set(selection.ids)
    removed: list[str] = []
    for table in _tables(db, selection):
        if table == EPISODIC_TABLE and not selection.matches_all:
            continue
        ids: list[Any] = []
        for memory_id, agent, concept, content, created in _rows(db, table, selection.agent):
            if wanted and memory_id not in wanted:
                continue
            if table == SEMANTIC_TABLE and not selection.matches(concept):
                continue
            if not selection.is_old(created, cutoff):
                continue
            ids.append(memory_id)
            plan.agents.add(agent)
            if len(plan.sample) < size:
                plan.sample.append({
                    "table": table, "id": memory_id, "label": concept or content,
                    "agent": agent, "created_at": created or None,
                })  # fmt: skip
        plan.add(table, "memory_id", ids)
        removed += ids
    if removed:
        _edges(db, plan, removed)
    return plan
