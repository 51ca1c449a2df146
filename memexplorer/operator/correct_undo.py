"""Undo a correction: remove exactly the fact and edges it added, put back what it changed.

The undo reads the plan kept beside the correction's backup. It first checks
that the store still holds exactly what the correction left: the new fact with
the same values, no edge to or from it but the planned ones, the older facts'
changed properties at their new values. Anything else means someone (the
agent) wrote since, and undoing would throw their writes away: then nothing is
changed and the error says so (restoring the whole backup remains possible).
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memexplorer.memory.hierarchical_schema import FACT_FIELDS
from memexplorer.memory.rs_sqlite_schema import EDGE_TABLES
from memexplorer.operator.backup_records import mark_restored
from memexplorer.operator.correct_write import CORRECTION_FILE, SET_STATEMENTS, open_for_writing
from memexplorer.operator.rs_sqlite_write import open_rs_writable
from memexplorer.operator.write_gate import write_gate
from memexplorer.storage.exceptions import InvalidInputError, StoreChangedError, StoreNotFoundError
from memexplorer.storage.graph_store import GraphStore, identifier
from memexplorer.storage.sqlite_db import SqliteConnection
from memexplorer.storage.sqlite_writer import immediate_transaction

__all__ = ["UndoResult", "undo_correction"]

_NODE_COLUMNS = ("memory_id", "agent_id", *FACT_FIELDS[1:])
_REL_NAMES = {"SIMILAR_TO", "SUPERSEDES", "TRANSITIONED_TO", "DERIVES_FROM"}


@dataclass(frozen=True)
class UndoResult:
    store: Path
    node_id: str
    edges_removed: int
    properties_restored: int

    def to_dict(self) -> dict[str, Any]:
        return {"store": str(self.store), "removed_fact": self.node_id,
                "edges_removed": self.edges_removed,
                "properties_restored": self.properties_restored}  # fmt: skip


def _edge_key(rel: str, source: str, target: str, props: dict[str, Any]) -> str:
    return json.dumps([rel, source, target, props], sort_keys=True)


def undo_correction(backup: str | Path) -> UndoResult:
    """Remove what the correction whose backup folder is ``backup`` added."""
    plan = _read_plan(Path(backup))
    store = Path(plan["store"])
    if not store.exists():
        raise StoreNotFoundError(
            store,
            "The corrected store is not there any more, so there is nothing to undo",
            hint="Check that it was not moved or renamed; `memexplorer restore` can put "
            "the whole backup back.",
        )
    with write_gate(store, action="undo correct"):
        if plan["engine"] == "sqlite":
            _undo_sqlite(store, plan)
        else:
            _undo_graph(store, plan)
    result = UndoResult(store, plan["node"]["memory_id"], len(plan["edges"]), len(plan["changes"]))
    mark_restored(Path(backup), {"undone": result.to_dict()})  # the list says it was undone
    return result


def _read_plan(backup: Path) -> dict[str, Any]:
    if not backup.is_dir():
        raise InvalidInputError(f"No backup folder {backup}",
                                hint="`memexplorer backups` lists them.")  # fmt: skip
    path = backup / CORRECTION_FILE
    if not path.is_file():
        raise InvalidInputError(
            f"{backup} is not the backup of a correction (no {CORRECTION_FILE})",
            hint="Give the folder `memexplorer correct` printed after writing.",
        )
    try:
        plan = json.loads(path.read_text(encoding="utf-8"))["plan"]
        names = (plan["store"], plan["engine"], plan["node"]["memory_id"])
        if not all(isinstance(v, str) for v in names) or not all(
            isinstance(plan[k], list) for k in ("edges", "changes")
        ):
            raise TypeError("store, engine and node are not what a correction writes")
    except (OSError, UnicodeDecodeError, ValueError, LookupError, TypeError) as exc:
        raise InvalidInputError(
            f"Cannot read the correction record {path} ({exc.__class__.__name__}: {exc}); "
            "nothing was changed",
            hint="`memexplorer restore` can still put the whole backup back.",
        ) from None
    return plan


def _refuse(store: Path, what: str) -> StoreChangedError:
    return StoreChangedError(
        store,
        f"The store changed since the correction ({what}): undoing it now would throw "
        "away what was written since, so nothing was changed",
        hint="Leave it, or restore the whole backup with `memexplorer restore ID` "
        "(that loses every write made since the correction).",
    )


def _check(store: Path, plan: dict[str, Any], node: dict[str, Any] | None, found: Counter[str],
           values: dict[tuple[str, str], Any]) -> None:  # fmt: skip
    if node is None:
        raise StoreChangedError(
            store,
            f"Fact {plan['node']['memory_id']} is not in the store: the correction was "
            "undone already, or its write never finished (the process stopped); there is "
            "nothing to undo and nothing was changed",
            hint="The store is as it was before the correction, or someone deleted the "
            "fact: `memexplorer query` shows it.",
        )
    if any(node[c] != plan["node"][c] for c in _NODE_COLUMNS):
        raise _refuse(store, "the corrected fact's values were changed")
    planned = Counter(
        _edge_key(e["rel"], e["source"], e["target"], e["properties"]) for e in plan["edges"]
    )
    if found != planned:
        raise _refuse(store, "edges to or from the corrected fact were added or removed")
    for change in plan["changes"]:
        if values.get((change["memory_id"], change["property"])) != change["after"]:
            raise _refuse(store, f"{change['property']} of {change['memory_id']} was changed")


def _graph_edges(graph: GraphStore, node_id: str) -> Counter[str]:
    found: Counter[str] = Counter()
    for rel in graph.rel_tables().values():
        if rel.name not in _REL_NAMES:
            continue
        columns = [name for name, _ in graph.columns(rel.name)]
        props = ", ".join(f"r.{identifier(c)}" for c in columns)
        tail = f", {props}" if props else ""
        table = identifier(rel.name)
        queries = [f"MATCH (a:SemanticMemory {{memory_id: $id}})-[r:{table}]->(b) "
                   f"RETURN a.memory_id, b.memory_id{tail}"]  # fmt: skip
        if any(dst == "SemanticMemory" for _, dst in rel.pairs):
            queries.append(
                f"MATCH (a:SemanticMemory)-[r:{table}]->(b:SemanticMemory {{memory_id: $id}}) "
                f"RETURN a.memory_id, b.memory_id{tail}"
            )
        seen = set()
        for query in queries:
            for row in graph.rows(query, {"id": node_id}):
                key = _edge_key(rel.name, row[0], row[1], dict(zip(columns, row[2:], strict=True)))
                if (row[0], row[1]) == (node_id, node_id) and key in seen:
                    continue  # a loop edge is found by both queries
                seen.add(key)
                found[key] += 1
    return found


def _undo_graph(store: Path, plan: dict[str, Any]) -> None:
    node_id = plan["node"]["memory_id"]
    with open_for_writing(store) as graph:
        columns = ", ".join(f"n.{c}" for c in _NODE_COLUMNS)
        rows = graph.rows(
            f"MATCH (n:SemanticMemory {{memory_id: $id}}) RETURN {columns}", {"id": node_id}
        )
        node = dict(zip(_NODE_COLUMNS, rows[0], strict=True)) if rows else None
        values = {}
        for change in plan["changes"]:
            value = graph.rows(
                f"MATCH (o:SemanticMemory {{memory_id: $id}}) "
                f"RETURN o.{identifier(change['property'])}",
                {"id": change["memory_id"]},
            )
            values[(change["memory_id"], change["property"])] = value[0][0] if value else None
        _check(store, plan, node, _graph_edges(graph, node_id), values)
        with graph.transaction():
            graph.execute("MATCH (n:SemanticMemory {memory_id: $id}) DETACH DELETE n",
                          {"id": node_id})  # fmt: skip
            for change in reversed(plan["changes"]):
                graph.execute(SET_STATEMENTS[change["property"]],
                              {"id": change["memory_id"], "value": change["before"]})  # fmt: skip


def _sqlite_edges(connection: SqliteConnection, node_id: str) -> Counter[str]:
    found: Counter[str] = Counter()
    for table in EDGE_TABLES:
        names = ", ".join(table.columns)
        for row in connection.execute(
            f"SELECT source_id, target_id, {names} FROM {table.name} "
            "WHERE source_id = ? OR target_id = ?",
            (node_id, node_id),
        ):
            found[_edge_key(table.rel, row[0], row[1], dict(zip(table.columns, row[2:],
                                                                strict=True)))] += 1  # fmt: skip
    return found


def _undo_sqlite(store: Path, plan: dict[str, Any]) -> None:
    node_id = plan["node"]["memory_id"]
    connection = open_rs_writable(store)
    try:
        with immediate_transaction(connection):
            names = ", ".join(_NODE_COLUMNS)
            row = connection.execute(
                f"SELECT {names} FROM semantic_memories WHERE memory_id = ?", (node_id,)
            ).fetchone()
            node = dict(zip(_NODE_COLUMNS, row, strict=True)) if row else None
            _check(store, plan, node, _sqlite_edges(connection, node_id), {})
            for table in EDGE_TABLES:
                connection.execute(
                    f"DELETE FROM {table.name} WHERE source_id = ? OR target_id = ?",
                    (node_id, node_id),
                )
            connection.execute("DELETE FROM semantic_memories WHERE memory_id = ?", (node_id,))
    finally:
        connection.close()
