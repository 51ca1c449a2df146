"""Redaction: secrets replaced after a backup of exactly the changed rows; restore undoes it."""

from __future__ import annotations

import json
import sqlite3

from memexplorer.operator.audit import audit_paths, audit_store
from memexplorer.operator.backup_records import read_backup
from memexplorer.operator.backups import restore_backup
from memexplorer.operator.redaction import redact_findings
from memexplorer.storage.graphdb import KuzuStore

OPS = "home/.amplihack/hierarchical_memory/ops-agent/kuzu_db"
EXPERIENCES = "home/.amplihack/memory/ops-agent/experiences.db"


def _content(path, memory_id):
    with KuzuStore(path) as graph:
        return graph.scalar(
            "MATCH (m:SemanticMemory {memory_id: $id}) RETURN m.content", {"id": memory_id}
        )


def test_redact_then_restore_a_graph_store(reference_stores, tmp_path):
    store = reference_stores / OPS
    fact = "0022c49b-0882-49c7-877a-ddf43f0ef08e"
    original = _content(store, fact)
    findings = audit_store(store)
    [result] = redact_findings(findings, home=tmp_path / "home")
    assert result.values == {"EpisodicMemory": 4, "SemanticMemory": 5}
    assert audit_store(store) == []
    redacted = _content(store, fact)
    assert "[REDACTED]" in redacted and "Gl4cier!Admin2026" not in redacted
    record, tables = read_backup(result.backup.path)
    assert record.action == "redact" and record.counts == result.values
    assert (result.backup.path.stat().st_mode & 0o777) == 0o700
    saved = {row["memory_id"] for table in tables for row in table.rows}
    assert saved == {f.id for f in findings}  # exactly the rows that changed
    restore_backup(result.backup.path)
    assert _content(store, fact) == original
    assert [f.to_dict() for f in audit_store(store)] == [f.to_dict() for f in findings]


def test_redact_sqlite_rebuilds_the_search_index(reference_stores, tmp_path):
    store = reference_stores / EXPERIENCES
    findings = audit_store(store)
    [result] = redact_findings(findings, home=tmp_path / "home")
    assert result.values == {"experiences": 2}
    connection = sqlite3.connect(store)
    try:
        hits = connection.execute(
            "SELECT count(*) FROM experiences_fts WHERE experiences_fts MATCH ?",
            ("AKIAFAKE0TEST1KEY2XQ",),
        ).fetchone()[0]
    finally:
        connection.close()
    assert hits == 0
    assert b"AKIAFAKE0TEST1KEY2XQ" not in store.read_bytes()
    record, _ = read_backup(result.backup.path)
    assert (record.kind, record.engine) == ("experience", "sqlite")  # experiences.db
    restore_backup(result.backup.path)
    assert len(audit_store(store)) == len(findings)


def test_nothing_left_to_redact_writes_no_backup(reference_stores, tmp_path):
    report = audit_paths([reference_stores / "shared_two_agents"])
    redact_findings(report.findings, home=tmp_path / "home")
    [again] = redact_findings(report.findings, home=tmp_path / "home")  # stale findings
    assert again.backup is None and again.values == {}
    assert len(list((tmp_path / "home" / "backups").iterdir())) == 1


def test_edge_properties_are_reported_not_redacted(tmp_path):
    path = tmp_path / "custom.kuzu"
    with KuzuStore(path, read_only=False) as graph:
        graph.execute("CREATE NODE TABLE Note(code INT64, body STRING, PRIMARY KEY(code))")
        graph.execute("CREATE REL TABLE LINKS(FROM Note TO Note, why STRING)")
        graph.execute("CREATE (:Note {code: 1, body: 'password: FakeNode1'})")
        graph.execute(
            "MATCH (a:Note {code: 1}) CREATE (a)-[:LINKS {why: 'token: FakeEdge22'}]->(a)"
        )
    [result] = redact_findings(audit_store(path), home=tmp_path / "home")
    assert result.values == {"Note": 1}
    assert result.not_redacted == ["LINKS.why (an edge property)"]
    assert [f.table for f in audit_store(path)] == ["LINKS"]
    manifest = json.loads((result.backup.path / "manifest.json").read_text())
    assert manifest["restore_mode"] == "replace"
