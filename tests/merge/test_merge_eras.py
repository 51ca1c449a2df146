"""One merge, and its undo, in a store of each era: Kuzu (the Python library at
4ae0813), LadybugDB (at b3033f7), amplihack-rs's SQLite store, and its graph-db.

The facts merged are chosen in the test from the store's raw rows (two current
facts of one concept, the newer kept); what the merge must add is the writer's
supersession only: one SUPERSEDES edge (row), every other row unchanged, and undo
gives back the whole dump, AUTOINCREMENT counter included.
"""

from __future__ import annotations

import base64
import json
import os
import re
import shutil
import sqlite3
from importlib.util import find_spec
from pathlib import Path

import pytest

from memexplorer.operator.backups import restore_backup
from memexplorer.operator.merge import merge_facts, preview_merge
from memexplorer.storage.exceptions import StoreUpgradeRequired
from memexplorer.storage.graph_open import open_graph_store

from .planted import dump

REASON = re.compile(r"^Merged duplicate \(similarity [01]\.\d\d\)$")
needs_ladybug = pytest.mark.skipif(
    find_spec("ladybug") is None and not os.environ.get("CI"),
    reason="needs the ladybug extra: pip install 'memexplorer[ladybug]'",
)


def _turn(metadata: str | None) -> int:
    """The temporal index in a fact's metadata: JSON, or (LadybugDB era) base64 of it."""
    text = metadata or "{}"
    if not text.startswith("{"):
        text = base64.b64decode(text).decode()
    value = json.loads(text).get("temporal_index", 0)
    return value if isinstance(value, int) and value > 0 else 0


def _pick(rows: list[tuple], superseded: set[str]) -> tuple[str, str, str]:
    """(keep, other, expected temporal_delta): the two newest current facts of the
    first concept (alphabetically) that has two."""
    by_concept: dict[str, list[tuple]] = {}
    for row in sorted(rows, key=lambda r: (r[2], r[0]), reverse=True):
        if row[0] not in superseded:
            by_concept.setdefault(" ".join(row[1].lower().split()), []).append(row)
    concept = min(c for c, found in by_concept.items() if len(found) > 1)
    keep, other = by_concept[concept][:2]
    turns = (_turn(other[3]), _turn(keep[3]))
    delta = f"index {turns[0]} -> {turns[1]}" if all(turns) else ""
    return keep[0], other[0], delta


def _graph_pick(store: Path, agent: str) -> tuple[str, str, str]:
    with open_graph_store(store, read_only=True) as graph:
        rows = [tuple(r) for r in graph.rows(
            "MATCH (m:SemanticMemory) WHERE m.agent_id = $a "
            "RETURN m.memory_id, m.concept, m.created_at, m.metadata", {"a": agent})]  # fmt: skip
        old = {r[0] for r in graph.rows("MATCH ()-[:SUPERSEDES]->(o:SemanticMemory) "
                                        "RETURN o.memory_id")}  # fmt: skip
    return _pick(rows, old)


def _merge_and_undo_graph(store: Path, agent: str, home: Path) -> None:
    keep, other, delta = _graph_pick(store, agent)
    before = dump(store)
    result = merge_facts(preview_merge(store, agent, keep, [other]), home=home)
    after = dump(store)
    added = sorted(set(after["SUPERSEDES"]) - set(before["SUPERSEDES"]))
    assert len(after["SUPERSEDES"]) == len(before["SUPERSEDES"]) + 1
    edge = json.loads(added[0])
    assert (edge["_from"], edge["_to"], edge["temporal_delta"]) == (keep, other, delta)
    assert REASON.match(edge["reason"])
    assert {k: v for k, v in after.items() if k != "SUPERSEDES"} == {
        k: v for k, v in before.items() if k != "SUPERSEDES"
    }
    restore_backup(result.backup.path)
    assert dump(store) == before


def test_kuzu_era_store(reference_stores: Path, tmp_path: Path):
    home = reference_stores / "home/.amplihack"
    store = home / "hierarchical_memory/ops-agent/kuzu_db"
    keep, other, _ = _graph_pick(store, "ops-agent")
    assert preview_merge(store, "ops-agent", keep, [other]).writer == "amplihack-memory-lib"
    _merge_and_undo_graph(store, "ops-agent", home)


@needs_ladybug
def test_ladybug_era_store(ladybug_stores: Path, tmp_path: Path):
    home = tmp_path / "home/.amplihack"
    shutil.copytree(ladybug_stores / "home/.amplihack/hierarchical_memory/ops-agent",
                    home / "hierarchical_memory/ops-agent")  # fmt: skip
    _merge_and_undo_graph(home / "hierarchical_memory/ops-agent/ladybug_db", "ops-agent", home)


def test_rust_sqlite_store(rust_sqlite_home: Path):
    home = rust_sqlite_home / "home/.amplihack"
    store = home / "hierarchical_memory/ops-agent.db"
    with sqlite3.connect(store) as db:
        rows = db.execute(
            "SELECT memory_id, concept, created_at, metadata "
            "FROM semantic_memories WHERE agent_id = 'ops-agent'"
        ).fetchall()
        old = {r[0] for r in db.execute("SELECT target_id FROM supersedes_edges")}
        last = db.execute("SELECT max(id) FROM supersedes_edges").fetchone()[0]
    db.close()
    keep, other, delta = _pick(rows, old)
    before = dump(store)
    plan = preview_merge(store, "ops-agent", keep, [other])
    assert (plan.writer, plan.engine) == ("amplihack-rs", "sqlite")
    result = merge_facts(plan, home=home)
    after = dump(store)
    added = sorted(set(after["supersedes_edges"]) - set(before["supersedes_edges"]))
    row = json.loads(added[0])
    # The Rust import's insert: the next AUTOINCREMENT id, endpoints, reason, delta.
    assert (row["rowid"], row["source_id"], row["target_id"], row["temporal_delta"]) == (
        last + 1, keep, other, delta)  # fmt: skip
    assert REASON.match(row["reason"])
    assert len(after["supersedes_edges"]) == len(before["supersedes_edges"]) + 1
    unchanged = ("semantic_memories", "episodic_memories", "similar_to_edges",
                 "derives_from_edges", "transitioned_to_edges")  # fmt: skip
    assert all(after[t] == before[t] for t in unchanged)
    restore_backup(result.backup.path)
    assert dump(store) == before  # sqlite_sequence back at its old value too


@needs_ladybug
def test_rust_graphdb_store_is_not_upgraded(rust_graphdb_home: Path, tmp_path: Path):
    """amplihack-rs's graph_db is LadybugDB storage 40 (lbug 0.15.4): writing with the
    installed ladybug would upgrade it, which the gate refuses; nothing changes."""
    store = rust_graphdb_home / "home/.amplihack/hierarchical_memory/docs-agent/graph_db"
    keep, other, _ = _graph_pick(store, "docs-agent")
    plan = preview_merge(store, "docs-agent", keep, [other])
    assert plan.writer == "amplihack-rs"
    before = dump(store)
    with pytest.raises(StoreUpgradeRequired):
        merge_facts(plan, home=tmp_path / "home")
    assert dump(store) == before


@needs_ladybug
def test_rust_graphdb_store_of_the_installed_ladybug(tmp_path: Path):
    """A graph_db the installed ladybug can write, made with amplihack-rs's DDL and node
    statement (tests/fixtures/rust_graphdb_statements.py): the merge is the import's
    SUPERSEDES statement, nothing else; undo gives the dump back."""
    from fixtures.rust_graphdb_statements import CREATE_SEMANTIC, HIERARCHICAL_SCHEMA

    store = tmp_path / "home/.amplihack/hierarchical_memory/rs-agent/graph_db"
    store.parent.mkdir(parents=True)
    with open_graph_store(store, read_only=False, create="ladybug") as graph:
        for statement in HIERARCHICAL_SCHEMA:
            graph.execute(statement)
        for memory_id, day in (("old", 1), ("new", 2)):
            graph.execute(CREATE_SEMANTIC, {
                "memory_id": memory_id, "concept": "region", "confidence": 0.9,
                "content": "Deploys go to eu-west-1", "source_id": "", "agent_id": "rs-agent",
                "tags": "[]", "metadata": "{}", "created_at": f"2026-01-0{day}T00:00:00+00:00",
                "entity_name": "",
            })  # fmt: skip
    before = dump(store)
    plan = preview_merge(store, "rs-agent", "new", ["old"])
    assert plan.writer == "amplihack-rs"
    result = merge_facts(plan, home=tmp_path / "home/.amplihack")
    after = dump(store)
    # Same words (0.5), no tags (0), same concept (0.3): 0.80.
    assert after["SUPERSEDES"] == [json.dumps({
        "_from": "new", "_from_table": "SemanticMemory", "_to": "old",
        "_to_table": "SemanticMemory", "reason": "Merged duplicate (similarity 0.80)",
        "temporal_delta": ""}, sort_keys=True)]  # fmt: skip
    assert after["TRANSITIONED_TO"] == before["TRANSITIONED_TO"] == []
    assert after["SemanticMemory"] == before["SemanticMemory"]
    restore_backup(result.backup.path)
    assert dump(store) == before
