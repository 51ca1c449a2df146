"""Write a planned correction through the write gate, with a backup and an undo record.

Inside the gate the correction is planned again from the store as it is now;
a plan that differs from the one previewed (the agent wrote meanwhile) writes
nothing. Then the whole store is copied under ``<home>/backups`` and the plan's
rows, edges and property changes are written in one transaction. The backup
folder also keeps ``correction.json`` (the plan), which :mod:`.correct_undo`
reads to remove exactly what was added.
"""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memexplorer.memory.rs_sqlite_schema import EDGE_TABLES
from memexplorer.operator.backup_records import BackupRecord
from memexplorer.operator.correct_plan import CorrectionPlan, CorrectionRequest
from memexplorer.operator.correct_read import plan_correction
from memexplorer.operator.rs_sqlite_write import insert_agent, open_rs_writable
from memexplorer.operator.store_backup import write_closed_store_backup, write_store_backup
from memexplorer.operator.write_gate import write_gate
from memexplorer.storage.exceptions import StoreChangedError, StoreError, StoreLockedError
from memexplorer.storage.graph_open import open_graph_store
from memexplorer.storage.graph_store import GraphStore
from memexplorer.storage.sqlite_db import SqliteError

__all__ = [
    "CORRECTION_FILE",
    "EDGE_STATEMENTS",
    "CorrectionResult",
    "correct_fact",
    "open_for_writing",
]

#: The plan, kept in the backup folder for the undo.
CORRECTION_FILE = "correction.json"

_CREATE_FACT = """
    CREATE (:SemanticMemory {memory_id: $memory_id, concept: $concept, content: $content,
        confidence: $confidence, source_id: $source_id, agent_id: $agent_id, tags: $tags,
        metadata: $metadata, created_at: $created_at, entity_name: $entity_name})
"""
_ENDS = "MATCH (a:SemanticMemory {memory_id: $a}), (b:SemanticMemory {memory_id: $b}) "
#: One statement per rel a correction writes; its properties are the parameters.
EDGE_STATEMENTS = {
    "SIMILAR_TO": _ENDS + "CREATE (a)-[:SIMILAR_TO {weight: $weight, metadata: $metadata}]->(b)",
    "SUPERSEDES": _ENDS + "CREATE (a)-[:SUPERSEDES {reason: $reason, "
    "temporal_delta: $temporal_delta}]->(b)",
    "TRANSITIONED_TO": _ENDS + "CREATE (a)-[:TRANSITIONED_TO {from_value: $from_value, "
    "to_value: $to_value, turn: $turn, transition_type: $transition_type}]->(b)",
}
#: The properties of an older fact a writer changes, one statement each.
SET_STATEMENTS = {
    "confidence": "MATCH (o:SemanticMemory {memory_id: $id}) SET o.confidence = $value",
    "metadata": "MATCH (o:SemanticMemory {memory_id: $id}) SET o.metadata = $value",
}


@dataclass(frozen=True)
class CorrectionResult:
    plan: CorrectionPlan
    backup: BackupRecord

    def to_dict(self) -> dict[str, Any]:
        return {**self.plan.to_dict(), "backup": str(self.backup.path),
                "backup_id": self.backup.id}  # fmt: skip


def correct_fact(
    plan: CorrectionPlan, request: CorrectionRequest, *, home: str | Path
) -> CorrectionResult:
    """Write ``plan`` (the preview of ``request``) after a backup; nothing is written
    if the store now gives another plan (StoreChangedError), is held by another
    writer (StoreBusyError), needs an upgrade (StoreUpgradeRequired) or cannot be
    backed up (BackupError)."""
    with write_gate(plan.store, action="correct") as ticket:
        if plan.engine == "ladybug":
            ticket.refuse_upgrade()
        # Planned again now, stamped now: the writer's created_at is the time it stores.
        request = dataclasses.replace(request, now_ns=time.time_ns())
        fresh = plan_correction(plan.store, request)
        if not fresh.same_writes(plan):
            raise StoreChangedError(
                plan.store,
                "The store changed since the correction was previewed, so it would now "
                "write other rows or edges; nothing was written",
                hint="Preview the correction again.",
            )
        backup = _backup(plan, Path(home))
        try:
            _write_record(backup.path, fresh, request)
            if fresh.engine == "sqlite":
                _write_sqlite(fresh)
            else:
                _write_graph(fresh)
        except StoreLockedError:
            # The store never opened for writing (an agent holds it): nothing was
            # written, so a backup listed as a correction would only mislead.
            shutil.rmtree(backup.path, ignore_errors=True)
            raise
    return CorrectionResult(fresh, backup)


def _backup(plan: CorrectionPlan, home: Path) -> BackupRecord:
    if plan.engine != "sqlite":
        return write_closed_store_backup(
            home, plan.store, engine=plan.engine, kind="hierarchical", action="correct"
        )
    from memexplorer.operator.rs_sqlite_browse import RsSqliteBrowser

    browser = RsSqliteBrowser(plan.store, writable=True)
    try:
        return write_store_backup(home, browser, action="correct", kind="hierarchical")
    finally:
        browser.close()


def _write_record(folder: Path, plan: CorrectionPlan, request: CorrectionRequest) -> None:
    """The plan beside the backup, its store absolute (the undo may run from another
    folder), written whole or not at all (a crash leaves no half a record)."""
    stored = {**plan.to_dict(), "store": str(plan.store.absolute())}
    record = {"plan": stored, "request": {
        "agent": request.agent, "memory_id": request.memory_id, "content": request.content,
        "concept": request.concept, "confidence": request.confidence,
        "node_id": request.node_id, "now_ns": request.now_ns}}  # fmt: skip
    partial = folder / f".{CORRECTION_FILE}.partial"
    fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        json.dump(record, handle, indent=2)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(partial, folder / CORRECTION_FILE)


#: How long a write waits for readers to let go of the store: another memexplorer's
#: preview (or the app's) holds it for a moment; a running agent holds it for good.
READERS_WAIT_S = 5.0


def open_for_writing(store: Path) -> GraphStore:
    """The store opened for writing once no reader holds it (Kuzu and LadybugDB let a
    writer in only when nobody has the file open); StoreLockedError after
    READERS_WAIT_S, with nothing written."""
    deadline = time.monotonic() + READERS_WAIT_S
    while True:
        try:
            return open_graph_store(store, read_only=False)
        except StoreLockedError:
            if time.monotonic() >= deadline:
                raise
            time.sleep(0.1)


def _write_graph(plan: CorrectionPlan) -> None:
    with open_for_writing(plan.store) as graph, graph.transaction():
        graph.execute(_CREATE_FACT, dict(plan.node))
        for edge in plan.edges:
            graph.execute(
                EDGE_STATEMENTS[edge.rel], {"a": edge.source, "b": edge.target, **edge.properties}
            )
        for change in plan.changes:
            graph.execute(SET_STATEMENTS[change.property], {"id": change.memory_id,
                                                            "value": change.after})  # fmt: skip


def _write_sqlite(plan: CorrectionPlan) -> None:
    """amplihack-rs's own import statements (a merge of one fact and its edges)."""
    node = {**plan.node, "tags": json.loads(plan.node["tags"]),
            "metadata": json.loads(plan.node["metadata"])}  # fmt: skip
    doc: dict[str, list[dict[str, Any]]] = {"semantic_nodes": [node], "episodic_nodes": []}
    for table in EDGE_TABLES:
        doc[table.name] = [
            {"source_id": e.source, "target_id": e.target, **e.properties}
            for e in plan.edges
            if e.rel == table.rel
        ]
    for edge in doc.get("similar_to_edges", []):
        edge["metadata"] = json.loads(edge["metadata"])
    connection = open_rs_writable(plan.store)
    try:
        insert_agent(connection, plan.agent, doc, merge=True)
    except SqliteError as exc:
        raise StoreError(plan.store, f"SQLite refused the correction ({exc})") from None
    finally:
        connection.close()
