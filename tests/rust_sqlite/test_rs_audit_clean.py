"""Audit, redaction and clean on amplihack-rs's SQLite hierarchical stores, through the
write gate with backups and undo. Expected values: the MANIFEST's planted credentials,
the Rust export in the fixture, and counts worked out by hand."""

from __future__ import annotations

import json

from memexplorer.cli.main import main
from memexplorer.operator.audit import audit_paths
from memexplorer.operator.backup_records import list_backups
from memexplorer.operator.backups import restore_backup

from .rust_reference import FOLDER, canonical, rust_export

FAKES = (b"AKIAFAKE0RUST1KEY2XQ", b"FakeRot8-new", b"Fake-Pass-42", b"FAKEresearchKey123",
         b"sk-FAKEsupport", b"xoxb-1234567890-FAKEslackrust", b"ghp_FAKErust")  # fmt: skip


def _planted(home, manifest) -> set[tuple]:
    return {
        (str(home / store), f["table"], f["id"], f["agent"], f["field"])
        for store, entry in manifest["databases"].items()
        for f in entry["inventory"]["credential_audit"]
    }


def test_the_audit_finds_exactly_the_planted_credentials(rust_sqlite_home, rust_sqlite_manifest):
    report = audit_paths([rust_sqlite_home / "home"])
    assert report.errors == [] and len(report.stores) == 4
    found = {(f.store, f.table, f.id, f.agent, f.column) for f in report.findings}
    assert found == _planted(rust_sqlite_home, rust_sqlite_manifest)
    support = audit_paths([rust_sqlite_home / "home"], agent="support-bot")
    assert {(f.table, f.id) for f in support.findings} == {
        ("episodic_memories", "sup-ep-1"), ("supersedes_edges", "1")
    }  # fmt: skip


def test_redaction_removes_every_secret_and_restore_brings_them_back(
    rust_sqlite_home, rust_sqlite_manifest, monkeypatch, capsys
):
    monkeypatch.setenv("HOME", str(rust_sqlite_home / "home"))
    home = rust_sqlite_home / "home/.amplihack"
    assert main(["audit", str(home), "--redact", "--yes"]) == 0, capsys.readouterr().err
    assert audit_paths([home]).findings == []
    files = [p.read_bytes() for p in (home / "hierarchical_memory").glob("*.db")]
    assert not [fake for fake in FAKES for data in files if fake in data]
    backups = list_backups(home)
    assert len(backups) == 3
    for record in backups:
        restore_backup(record.path)
    found = {(f.store, f.table, f.id, f.agent, f.column) for f in audit_paths([home]).findings}
    assert found == _planted(rust_sqlite_home, rust_sqlite_manifest)


def test_clean_takes_facts_with_their_edges_and_undo_puts_them_back(
    rust_sqlite_home, monkeypatch, capsys
):
    monkeypatch.setenv("HOME", str(rust_sqlite_home / "home"))
    db = rust_sqlite_home / FOLDER / "ops-agent.db"
    original = json.loads((rust_sqlite_home / "rust_exports/ops-agent.json").read_text())
    command = ["clean", "replica*", "--store", str(db), "--no-dry-run", "--yes", "--json"]
    assert main(command) == 0
    result = json.loads(capsys.readouterr().out)
    # replica host (ops-f-2) and the three replica count facts; their edges by hand:
    # SIMILAR_TO ops-rep-3->ops-f-2; DERIVES_FROM ops-f-2, ops-rep-3 -> ops-ep-2;
    # SUPERSEDES and TRANSITIONED_TO rep-2->rep-1, rep-3->rep-2.
    assert result["counts"] == {"semantic_memories": 4}
    assert result["edges"] == {"SIMILAR_TO": 1, "DERIVES_FROM": 2, "SUPERSEDES": 2,
                               "TRANSITIONED_TO": 2}  # fmt: skip
    gone = {"ops-f-2", "ops-rep-1", "ops-rep-2", "ops-rep-3"}
    expected = dict(original)
    expected["semantic_nodes"] = [n for n in original["semantic_nodes"]
                                  if n["memory_id"] not in gone]  # fmt: skip
    for key in ("similar_to_edges", "derives_from_edges", "supersedes_edges",
                "transitioned_to_edges"):  # fmt: skip
        expected[key] = [e for e in original[key]
                         if e["source_id"] not in gone and e["target_id"] not in gone]  # fmt: skip
    assert canonical(rust_export(db, "ops-agent")) == canonical(expected)
    restore_backup(result["backup"])
    assert canonical(rust_export(db, "ops-agent")) == canonical(original)
