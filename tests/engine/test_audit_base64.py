"""Secrets inside base64-of-JSON values (LadybugDB-era tags, metadata, steps):
the audit decodes them, redaction re-encodes them, restore brings the bytes back."""

from __future__ import annotations

import base64
import json
import os
import shutil
import sqlite3
from importlib.util import find_spec

import pytest
from store_helpers import checksums

from memexplorer.operator.audit import audit_paths, audit_store
from memexplorer.operator.backups import restore_backup
from memexplorer.operator.redaction import redact_findings
from memexplorer.storage.graph_open import open_graph_store
from memexplorer.storage.graphdb import KuzuStore
from memexplorer.storage.stored_json import decode_stored_json, stored_json_text

HIERARCHICAL = "home/.amplihack/hierarchical_memory/ops-agent/ladybug_db"
COGNITIVE = "cognitive_db"
STEPS_SECRET = "ghp_FAKEFAKEFAKEFAKEFAKEFAKEFAKEFAKEFAKE2"
needs_ladybug = pytest.mark.skipif(
    find_spec("ladybug") is None and not os.environ.get("CI"),
    reason="needs the ladybug extra: pip install 'memexplorer[ladybug]'",
)


def _b64(value: object) -> str:
    return base64.b64encode(json.dumps(value).encode()).decode()


def test_decode_stored_json_tells_base64_from_json_and_text():
    assert decode_stored_json("W10=") == ([], True)
    assert decode_stored_json(_b64({"a": "é"})) == ({"a": "é"}, True)
    assert decode_stored_json('{"a": 1}') == ({"a": 1}, False)
    assert decode_stored_json("evidence") == (None, False)  # base64 alphabet, not JSON
    assert decode_stored_json("plain words") == (None, False)
    assert decode_stored_json(None) == (None, False)
    assert stored_json_text("W10=") == "[]" and stored_json_text("[]") is None


def _flagged(findings, root):
    return {
        (str(f.location.path.relative_to(root)), f.table, f.id, f.location.column) for f in findings
    }


@needs_ladybug
def test_audit_of_ladybug_stores_equals_the_manifest(ladybug_stores, ladybug_manifest):
    before = checksums(ladybug_stores)
    report = audit_paths([ladybug_stores])
    assert checksums(ladybug_stores) == before
    assert not report.errors
    expected = {
        (store, flag["table"], flag["id"], flag["field"])
        for store, entry in ladybug_manifest["databases"].items()
        for flag in entry["inventory"]["credential_audit"]
    }
    assert _flagged(report.findings, ladybug_stores) == expected
    encoded = {
        (store, flag["table"], flag["id"], f"{flag['field']} (base64)")
        for store, entry in ladybug_manifest["databases"].items()
        for flag in entry["inventory"]["credential_audit"]
        if flag.get("stored_as", "").startswith("base64")
    }
    shown = {
        (str(f.location.path.relative_to(ladybug_stores)), f.table, f.id, f.column)
        for f in report.findings
        if f.column.endswith("(base64)")
    }
    assert shown == encoded and len(encoded) == 2


@needs_ladybug
def test_a_base64_finding_previews_the_decoded_text_masked(ladybug_stores):
    [steps] = [f for f in audit_store(ladybug_stores / COGNITIVE) if f.table == "ProceduralMemory"]
    assert steps.column == "steps (base64)" and steps.kind == "github_token"
    assert "GITHUB_TOKEN=[github_token:ghp_***]" in steps.preview
    assert STEPS_SECRET not in steps.preview and "==" not in steps.preview


def _cells(path):
    """Every node cell of a graph store: (table, key, column) -> value."""
    cells = {}
    with open_graph_store(path) as graph:
        for table in graph.node_tables():
            key = graph.primary_key(table)
            names = [name for name, _ in graph.columns(table)]
            for row in graph.rows(f"MATCH (n:{table}) RETURN n.{key}, n"):
                for name in names:
                    cells[(table, row[0], name)] = row[1].get(name)
    return cells


@needs_ladybug
@pytest.mark.parametrize("store", [COGNITIVE, HIERARCHICAL])
def test_redact_base64_values_round_trip(ladybug_stores, tmp_path, store):
    path = tmp_path / "store" / "ladybug_db"
    path.parent.mkdir()
    shutil.copy2(ladybug_stores / store, path)
    original = _cells(path)
    findings = audit_store(path)
    encoded = [f for f in findings if f.column.endswith("(base64)")]
    assert len(encoded) == 1
    [result] = redact_findings(findings, home=tmp_path / "home")
    assert result.not_redacted == []
    redacted = _cells(path)
    flagged = {(f.table, f.id, f.location.column) for f in findings}
    assert {cell for cell in original if original[cell] != redacted[cell]} == flagged
    where = encoded[0]
    value = redacted[(where.table, where.id, where.location.column)]
    decoded, was_base64 = decode_stored_json(value)
    text = json.dumps(decoded)
    old_text = stored_json_text(original[(where.table, where.id, where.location.column)])
    assert was_base64 and "[REDACTED]" in text and text != old_text
    assert not [f for f in audit_store(path) if f.column.endswith("(base64)")]
    restore_backup(result.backup.path)
    assert _cells(path) == original


def test_sqlite_and_kuzu_columns_holding_base64_are_scanned(tmp_path):
    secret = {"note": "password: FakeB64Pass1"}
    sqlite_path = tmp_path / "notes.db"
    connection = sqlite3.connect(sqlite_path)
    connection.execute("CREATE TABLE notes(id TEXT PRIMARY KEY, meta TEXT)")
    connection.executemany(
        "INSERT INTO notes VALUES (?, ?)", [("a", _b64(secret)), ("b", _b64({"ok": 1}))]
    )
    connection.commit()
    connection.close()
    kuzu_path = tmp_path / "notes.kuzu"
    with KuzuStore(kuzu_path, read_only=False) as graph:
        graph.execute("CREATE NODE TABLE Note(id STRING, meta STRING, PRIMARY KEY(id))")
        graph.execute("CREATE (:Note {id: 'a', meta: $m})", {"m": _b64(secret)})
        graph.execute("CREATE (:Note {id: 'b', meta: $m})", {"m": _b64(["fine"])})
    for path in (sqlite_path, kuzu_path):
        [finding] = audit_store(path)
        assert (finding.id, finding.column, finding.kind) == ("a", "meta (base64)", "password")
        [result] = redact_findings([finding], home=tmp_path / "home")
        assert result.changed == 1 and audit_store(path) == []


def test_a_secret_across_json_fields_is_scrubbed_string_by_string(tmp_path):
    path = tmp_path / "notes.kuzu"
    value = {"url": "mysql://svc:FakePass5", "host": "x@db", "key": "token: FakeTok77"}
    with KuzuStore(path, read_only=False) as graph:
        graph.execute("CREATE NODE TABLE Note(id STRING, meta STRING, PRIMARY KEY(id))")
        graph.execute("CREATE (:Note {id: 'a', meta: $m})", {"m": _b64(value)})
    [result] = redact_findings(audit_store(path), home=tmp_path / "home")
    with KuzuStore(path) as graph:
        stored = graph.scalar("MATCH (n:Note) RETURN n.meta")
    decoded, was_base64 = decode_stored_json(stored)
    assert was_base64 and decoded["key"] == "token: [REDACTED]" and decoded["host"] == "x@db"
    assert result.changed == 1


def test_a_secret_only_json_syntax_joins_is_named_not_redacted(tmp_path):
    path = tmp_path / "notes.kuzu"
    value = _b64({"url": "mysql://svc:FakePass5", "host": "x@db"})
    with KuzuStore(path, read_only=False) as graph:
        graph.execute("CREATE NODE TABLE Note(id STRING, meta STRING, PRIMARY KEY(id))")
        graph.execute("CREATE (:Note {id: 'a', meta: $m})", {"m": value})
    [result] = redact_findings(audit_store(path), home=tmp_path / "home")
    assert result.changed == 0 and result.backup is None
    assert result.not_redacted == ["Note.meta of a (a secret across JSON fields)"]
    with KuzuStore(path) as graph:
        assert graph.scalar("MATCH (n:Note) RETURN n.meta") == value
