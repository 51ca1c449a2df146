"""Clean plans for Kuzu stores: hierarchical, cognitive, experience and flat graph-db.

Graph stores are planned from the catalog, so any node table takes part: a
node matches when its agent column, its pattern column (``concept``, or
``experience_type`` in experience stores), its age column and its key match
what was asked. In a flat graph-db store the pattern selects Session nodes by
session id, and their memories (reached through the Session-to-memory rels)
go with them. Agent nodes are never removed.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from memexplorer.memory.flat_graph_schema import MEMORY_TABLES
from memexplorer.memory.inspection import AGENT_COLUMNS
from memexplorer.operator.clean_plan import LABEL_COLUMNS, Plan
from memexplorer.operator.clean_selection import BadSelectionError, Selection
from memexplorer.operator.graph_rows import (
    count_edges,
    delete_nodes,
    node_key,
    save_edges,
    save_nodes,
)
from memexplorer.operator.saved_rows import SavedTable
from memexplorer.storage.graphdb import GraphStore, identifier

__all__ = ["delete_graph_plan", "plan_graph", "save_graph_plan"]

_AGE_COLUMNS = ("created_at", "timestamp")


def _first(columns: set[str], names: tuple[str, ...]) -> str | None:
    return next((name for name in names if name in columns), None)


def _agents_in(graph: GraphStore, tables: dict[str, set[str]]) -> set[str]:
    found: set[str] = set()
    for table, columns in tables.items():
        column = _first(columns, AGENT_COLUMNS)
        if column:
            query = f"MATCH (n:{identifier(table)}) RETURN DISTINCT n.{identifier(column)}"
            found |= {row[0] for row in graph.rows(query) if row[0] is not None}
    return found


def _check(graph: GraphStore, selection: Selection, columns: dict[str, set[str]]) -> list[str]:
    """The node tables to scan; unknown tables and agents are refused by name."""
    tables = sorted(columns)
    if selection.table is not None:
        if selection.table not in columns:
            raise BadSelectionError(
                f"No table {selection.table!r} in {graph.path}; its node tables are: "
                + ", ".join(tables)
            )
        tables = [selection.table]
    if selection.agent is not None:
        agents = _agents_in(graph, columns)
        if selection.agent not in agents:
            raise BadSelectionError(
                f"No agent {selection.agent!r} in {graph.path}; agents here: "
                + (", ".join(sorted(agents)) or "none")
            )
    return tables


def _sample(
    graph: GraphStore, table: str, key: str, columns: set[str], ids: list[Any], size: int
) -> list[dict[str, Any]]:
    label = _first(columns - {key}, LABEL_COLUMNS)
    agent = _first(columns, AGENT_COLUMNS)
    age = _first(columns, _AGE_COLUMNS)
    wanted = [name for name in (label, agent, age) if name]
    returned = ", ".join([f"n.{identifier(key)}", *(f"n.{identifier(n)}" for n in wanted)])
    query = (
        f"UNWIND $ids AS i MATCH (n:{identifier(table)} {{{identifier(key)}: i}}) RETURN {returned}"
    )
    out = []
    for row in graph.rows(query, {"ids": ids[:size]}):
        values = dict(zip(wanted, row[1:], strict=True))
        out.append({
            "table": table, "id": row[0],
            "label": str(values.get(label, "") or "") if label else "",
            "agent": values.get(agent) if agent else None,
            "created_at": str(values[age]) if age and values.get(age) is not None else None,
        })  # fmt: skip
    return out


def _plan_nodes(
    graph: GraphStore, kind: str, selection: Selection, now: datetime, size: int
) -> Plan:
    columns = {t: {c for c, _ in graph.columns(t)} for t in graph.node_tables()}
    plan = Plan(kind)
    pattern_column = "experience_type" if kind == "experience" else "concept"
    cutoff = selection.cutoff(now)
    wanted_ids = set(selection.ids)
    for table in _check(graph, selection, columns):
        cols = columns[table]
        key = node_key(graph, table)
        agent = _first(cols, AGENT_COLUMNS)
        pattern = pattern_column if pattern_column in cols else None
        age = _first(cols, _AGE_COLUMNS)
        if (selection.agent and not agent) or (cutoff and not age):
            continue
        if not selection.matches_all and not pattern:
            continue
        fields = [key, agent, pattern, age]
        returned = ", ".join(f"n.{identifier(f)}" if f else "NULL" for f in fields)
        where, params = "", {}
        if selection.agent and agent:
            where, params = f"WHERE n.{identifier(agent)} = $agent", {"agent": selection.agent}
        ids, agents = [], set()
        found = graph.arrow(f"MATCH (n:{identifier(table)}) {where} RETURN {returned}", params)
        for row_key, row_agent, row_pattern, row_age in zip(
            *(column.to_pylist() for column in found.columns), strict=True
        ):
            if wanted_ids and str(row_key) not in wanted_ids:
                continue
            if pattern and not selection.matches(row_pattern):
                continue
            if not selection.is_old(row_age, cutoff):
                continue
            ids.append(row_key)
            if row_agent is not None:
                agents.add(row_agent)
        plan.add(table, key, ids)
        plan.agents |= agents
        if ids and len(plan.sample) < size:
            plan.sample += _sample(graph, table, key, cols, ids, size - len(plan.sample))
    return plan


def _plan_flat(graph: GraphStore, selection: Selection, now: datetime, size: int) -> Plan:
    plan = Plan("flat")
    cutoff = selection.cutoff(now)
    sessions = [
        sid
        for sid, last in graph.rows("MATCH (s:Session) RETURN s.session_id, s.last_accessed")
        if selection.matches(sid) and selection.is_old(last, cutoff)
    ]
    plan.add("Session", "session_id", sessions)
    rels = set(graph.rel_tables())
    nodes = set(graph.node_tables())
    for table in MEMORY_TABLES:
        if table.label not in nodes or table.rel not in rels or not sessions:
            continue
        query = (
            f"UNWIND $ids AS i MATCH (s:Session {{session_id: i}})-[:{identifier(table.rel)}]->"
            f"(m:{identifier(table.label)}) RETURN DISTINCT m.memory_id, m.agent_id"
        )
        found = graph.rows(query, {"ids": sessions})
        plan.add(table.label, "memory_id", [row[0] for row in found])
        plan.agents |= {row[1] for row in found if row[1] is not None}
    for table, (key, ids) in plan.targets.items():
        if len(plan.sample) < size:
            cols = {c for c, _ in graph.columns(table)}
            plan.sample += _sample(graph, table, key, cols, ids, size - len(plan.sample))
    return plan


def plan_graph(
    graph: GraphStore, kind: str, selection: Selection, now: datetime, sample_size: int
) -> Plan:
    """Which nodes the selection removes, and how many edges go with them."""
    if kind == "flat":
        selection.refuse_on_flat()
        plan = _plan_flat(graph, selection, now, sample_size)
    else:
        plan = _plan_nodes(graph, kind, selection, now, sample_size)
    plan.edges = count_edges(graph, plan.selected)
    return plan


def save_graph_plan(graph: GraphStore, plan: Plan) -> list[SavedTable]:
    """Every planned node with every column, then every edge touching them."""
    nodes = [save_nodes(graph, table, ids) for table, (_, ids) in plan.targets.items()]
    return nodes + save_edges(graph, plan.selected)


def delete_graph_plan(graph: GraphStore, plan: Plan) -> None:
    """DETACH DELETE the planned nodes, all in one transaction."""
    with graph.transaction():
        for table, (_, ids) in plan.targets.items():
            delete_nodes(graph, table, ids)
