"""Redaction's edges, on stores built by hand: what the backup says the store is,
a store refused among several, values that changed since the audit, and SQLite
tables keyed by rowid or by a composite key."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from gate_helpers import gate_held_elsewhere

from memexplorer.operator.audit import audit_paths, audit_store
from memexplorer.operator.backup_records import read_backup
from memexplorer.operator.redaction import redact_findings
from memexplorer.storage.exceptions import CompactionError, StoreBusyError, StoreLockedError
from memexplorer.storage.graphdb import KuzuStore

OPS = "home/.amplihack/hierarchical_memory/ops-agent/kuzu_db"
EXPERIENCES = "home/.amplihack/memory/ops-agent/experiences.db"


def _sqlite(path: Path, *statements: str) -> Path:
    connection = sqlite3.connect(path)
    try:
        for statement in statements:
            connection.execute(statement)
        connection.commit()
    finally:
        connection.close()
    return path


def _rows(path: Path, query: str) -> list[tuple]:
    connection = sqlite3.connect(path)
    try:
        return connection.execute(query).fetchall()
    finally:
        connection.close()


def test_the_backup_names_the_kind_of_store_it_came_from(reference_stores, tmp_path):
    [graph] = redact_findings(audit_store(reference_stores / OPS), home=tmp_path / "h1")
    [sqlite] = redact_findings(audit_store(reference_stores / EXPERIENCES), home=tmp_path / "h2")
    flat = _sqlite(
        tmp_path / "memory.db",
        "CREATE TABLE memory_entries (id TEXT PRIMARY KEY, content TEXT)",
        "INSERT INTO memory_entries VALUES ('m1', 'password=Flat1Secret')",
    )
    [flat_result] = redact_findings(audit_store(flat), home=tmp_path / "h3")
    kinds = [read_backup(r.backup.path)[0].kind for r in (graph, sqlite, flat_result)]
    assert kinds == ["hierarchical", "experience", "flat"]


def test_one_store_refused_is_raised(reference_stores, tmp_path):
    store = reference_stores / EXPERIENCES
    findings = audit_store(store)
    with gate_held_elsewhere(store), pytest.raises(StoreBusyError):
        redact_findings(findings, home=tmp_path / "home")
    assert len(audit_store(store)) == len(findings)


@pytest.mark.parametrize("others", [1, 2])
def test_among_several_stores_a_refused_one_is_reported_and_the_rest_redacted(
    reference_stores, tmp_path, others
):
    busy = reference_stores / EXPERIENCES
    free = [reference_stores / OPS, reference_stores / "shared_two_agents" / "kuzu_db"][:others]
    findings = [f for store in (busy, *free) for f in audit_store(store)]
    with gate_held_elsewhere(busy):
        results = redact_findings(findings=findings, home=tmp_path / "home")
    by_store = {result.store: result for result in results}
    assert set(by_store) == {busy, *free}
    refused = by_store[busy].refused or ""
    assert refused.startswith("Store is busy: Another memexplorer process is writing this store")
    assert by_store[busy].backup is None and by_store[busy].values == {}
    assert by_store[free[0]].values == {"EpisodicMemory": 4, "SemanticMemory": 5}
    assert all(by_store[store].changed and audit_store(store) == [] for store in free)
    assert audit_store(busy) != []


def test_a_store_that_cannot_be_rewritten_keeps_its_redaction_and_says_why(
    reference_stores, tmp_path, monkeypatch
):
    def refuse(path, *, ticket):
        raise CompactionError(path, "No room for the rewritten copy")

    monkeypatch.setattr("memexplorer.operator.redaction.compact_store", refuse)
    store = reference_stores / OPS
    [result] = redact_findings(audit_store(store), home=tmp_path / "home")
    assert result.compaction is None
    assert result.not_compacted is not None and "No room for the rewritten copy" in (
        result.not_compacted
    )
    assert result.values == {"EpisodicMemory": 4, "SemanticMemory": 5}
    assert audit_store(store) == []


def test_a_sqlite_store_an_agent_is_writing_is_refused_unchanged(tmp_path):
    store = _sqlite(
        tmp_path / "memory.db",
        "CREATE TABLE memory_entries (id TEXT PRIMARY KEY, content TEXT)",
        "INSERT INTO memory_entries VALUES ('m1', 'password=Flat1Secret')",
    )
    findings = audit_store(store)
    agent = sqlite3.connect(store, isolation_level=None)
    try:
        agent.execute("BEGIN IMMEDIATE")
        with pytest.raises(StoreLockedError, match="Another process is writing"):
            redact_findings(findings, home=tmp_path / "home")
    finally:
        agent.execute("ROLLBACK")
        agent.close()
    assert _rows(store, "SELECT content FROM memory_entries") == [("password=Flat1Secret",)]


def test_a_value_cleaned_since_the_audit_leaves_the_rows_other_secrets_redacted(tmp_path):
    path = tmp_path / "custom.kuzu"
    with KuzuStore(path, read_only=False) as graph:
        graph.execute("CREATE NODE TABLE Note(code INT64, a STRING, b STRING, PRIMARY KEY(code))")
        graph.execute("CREATE (:Note {code: 1, a: 'password: FakeA1', b: 'token: FakeB22'})")
    findings = audit_store(path)
    assert sorted(f.column for f in findings) == ["a", "b"]
    with KuzuStore(path, read_only=False) as graph:  # the agent rewrote column a meanwhile
        graph.execute("MATCH (n:Note {code: 1}) SET n.a = 'rotated, nothing here'")
    [result] = redact_findings(findings, home=tmp_path / "home")
    assert result.values == {"Note": 1}
    with KuzuStore(path) as graph:
        assert graph.rows("MATCH (n:Note) RETURN n.a, n.b") == [
            ["rotated, nothing here", "token: [REDACTED]"]
        ]


def test_stale_findings_change_no_byte_and_rewrite_nothing(reference_stores, tmp_path):
    report = audit_paths([reference_stores / "shared_two_agents"])
    [first] = redact_findings(report.findings, home=tmp_path / "home")
    assert first.changed and first.compaction is not None
    store = first.store
    before = store.read_bytes()
    [again] = redact_findings(report.findings, home=tmp_path / "home")
    assert again.changed == 0 and again.compaction is None and again.not_compacted is None
    assert store.read_bytes() == before


def test_a_table_keyed_by_rowid(tmp_path):
    store = _sqlite(
        tmp_path / "memory.db",
        "CREATE TABLE memory_entries (id TEXT PRIMARY KEY, content TEXT)",
        "CREATE TABLE notes (body TEXT)",
        "INSERT INTO notes VALUES ('nothing'), ('password=Rowid2Secret'), ('ok')",
    )
    [result] = redact_findings(audit_store(store), home=tmp_path / "home")
    assert result.values == {"notes": 1}
    assert _rows(store, "SELECT rowid, body FROM notes ORDER BY rowid") == [
        (1, "nothing"), (2, "password=[REDACTED]"), (3, "ok")
    ]  # fmt: skip


def test_a_table_with_a_composite_key_changes_only_the_flagged_rows(tmp_path):
    """Rows share the key's first column; the one before the flagged rows is clean.
    Another table of the store, keyed by its id, is redacted in the same run."""
    store = _sqlite(
        tmp_path / "memory.db",
        "CREATE TABLE memory_entries (id TEXT PRIMARY KEY, content TEXT)",
        "INSERT INTO memory_entries VALUES ('m1', 'password=Entry1Secret')",
        "CREATE TABLE notes (a TEXT, b INTEGER, body TEXT, PRIMARY KEY (a, b)) WITHOUT ROWID",
        "INSERT INTO notes VALUES ('x', 0, 'nothing'), ('x', 1, 'password=Comp1Secret'), "
        "('x', 2, 'token: Comp2Secret'), ('y', 0, 'password=Other0Secret')",
    )
    findings = audit_store(store)
    notes = [f for f in findings if f.table == "notes"]
    assert len(notes) == 3 and len(findings) == 4
    chosen = [f for f in findings if f.table == "memory_entries"] + notes[:2]
    [result] = redact_findings(chosen, home=tmp_path / "home")
    assert result.values == {"memory_entries": 1, "notes": 2}
    assert _rows(store, "SELECT id, content FROM memory_entries") == [("m1", "password=[REDACTED]")]
    assert _rows(store, "SELECT a, b, body FROM notes ORDER BY a, b") == [
        ("x", 0, "nothing"), ("x", 1, "password=[REDACTED]"), ("x", 2, "token: [REDACTED]"),
        ("y", 0, "password=Other0Secret"),
    ]  # fmt: skip
