"""Clean plans for SQLite stores: flat memory.db and experience stores.

Flat stores (seed 002's memory_entries, sessions, session_agents) are cleaned
by session: the pattern globs session ids (also ids that appear only in
memory_entries or session_agents), and a session goes with all its rows,
expired ones included. Experience stores are cleaned by row of
``experiences``: agent (``agent_name``), pattern over ``experience_type``,
age (``timestamp``), ids.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from memexplorer.operator.clean_plan import Plan
from memexplorer.operator.clean_rs_sqlite import plan_rs_sqlite
from memexplorer.operator.clean_selection import BadSelectionError, Selection
from memexplorer.operator.saved_rows import SavedTable
from memexplorer.operator.sqlite_in import chunks, count_in, marks
from memexplorer.operator.sqlite_rows import delete_rows, rebuild_fts, save_rows
from memexplorer.storage.sqlite_db import SqliteConnection

__all__ = ["FLAT_TABLES", "delete_sqlite_plan", "plan_sqlite", "save_sqlite_plan"]

#: Flat tables in the order a session's rows are saved and removed.
FLAT_TABLES = ("memory_entries", "session_agents", "sessions")
EXPERIENCES = "experiences"


def _plan_flat(db: SqliteConnection, selection: Selection, now: datetime, size: int) -> Plan:
    selection.refuse_on_flat()
    last: dict[str, Any] = {}
    for sid, accessed in db.execute(
        "SELECT session_id, max(accessed_at) FROM memory_entries GROUP BY session_id"
    ):
        last[sid] = accessed
    for sid, used in db.execute(
        "SELECT session_id, max(last_used) FROM session_agents GROUP BY session_id"
    ):
        last.setdefault(sid, used)
    for sid, accessed in db.execute("SELECT session_id, last_accessed FROM sessions"):
        last[sid] = accessed
    cutoff = selection.cutoff(now)
    sessions = sorted(
        sid
        for sid, when in last.items()
        if selection.matches(sid) and selection.is_old(when, cutoff)
    )
    plan = Plan("flat")
    if not sessions:
        return plan
    for table in FLAT_TABLES:
        count = count_in(db, table, "session_id", sessions)
        if count:
            plan.targets[table] = ("session_id", sessions)
            plan.counts[table] = count
    for chunk in chunks(sessions):
        plan.agents |= {
            row[0]
            for row in db.execute(
                f"SELECT agent_id FROM memory_entries WHERE session_id IN ({marks(chunk)}) "
                f"UNION SELECT agent_id FROM session_agents WHERE session_id IN ({marks(chunk)})",
                chunk + chunk,
            )
        }
    for sid in sessions[:size]:
        count = db.execute(
            "SELECT count(*) FROM memory_entries WHERE session_id = ?", (sid,)
        ).fetchone()[0]
        plan.sample.append({
            "table": "sessions", "id": sid, "label": f"{count} memory_entries",
            "agent": None, "created_at": str(last.get(sid)) if last.get(sid) else None,
        })  # fmt: skip
    return plan


def _plan_experiences(db: SqliteConnection, selection: Selection, now: datetime, size: int) -> Plan:
    if selection.table not in (None, EXPERIENCES):
        raise BadSelectionError(
            f"No table {selection.table!r} to clean here; an experience store has: {EXPERIENCES}"
        )
    agents = {row[0] for row in db.execute("SELECT DISTINCT agent_name FROM experiences")}
    if selection.agent is not None and selection.agent not in agents:
        raise BadSelectionError(
            f"No agent {selection.agent!r} in this store; agents here: "
            + (", ".join(sorted(a for a in agents if a)) or "none")
        )
    where, params = ("WHERE agent_name = ?", [selection.agent]) if selection.agent else ("", [])
    cutoff = selection.cutoff(now)
    wanted = set(selection.ids)
    plan = Plan("experience")
    ids = []
    for row in db.execute(
        "SELECT experience_id, agent_name, experience_type, timestamp, context "
        f"FROM experiences {where} ORDER BY timestamp, experience_id",
        params,
    ):
        if wanted and row[0] not in wanted:
            continue
        if not selection.matches(row[2]) or not selection.is_old(row[3], cutoff):
            continue
        ids.append(row[0])
        plan.agents.add(row[1])
        if len(plan.sample) < size:
            plan.sample.append({
                "table": EXPERIENCES, "id": row[0], "label": f"[{row[2]}] {row[4]}",
                "agent": row[1], "created_at": str(row[3]),
            })  # fmt: skip
    plan.add(EXPERIENCES, "experience_id", ids)
    return plan


def plan_sqlite(
    db: SqliteConnection, kind: str, selection: Selection, now: datetime, sample_size: int
) -> Plan:
    """Which rows of a flat, experience or amplihack-rs hierarchical store the
    selection removes."""
    if kind == "hierarchical":
        return plan_rs_sqlite(db, selection, now, sample_size)
    if kind == "flat":
        return _plan_flat(db, selection, now, sample_size)
    return _plan_experiences(db, selection, now, sample_size)


def save_sqlite_plan(db: SqliteConnection, plan: Plan) -> list[SavedTable]:
    return [save_rows(db, table, key, values) for table, (key, values) in plan.targets.items()]


def delete_sqlite_plan(db: SqliteConnection, plan: Plan) -> None:
    """Remove the planned rows (inside the caller's transaction) and mend FTS indexes."""
    for table, (key, values) in plan.targets.items():
        delete_rows(db, table, key, values)
    rebuild_fts(db, list(plan.targets))
