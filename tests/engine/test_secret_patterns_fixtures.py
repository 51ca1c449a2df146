"""Every field MANIFEST's credential audit flagged in the reference stores, found by find_secrets.

The audit ran the reference library's ``CredentialScrubber.PATTERNS`` over every
string field; the secret table must flag at least those fields, with previews
that never repeat the secret.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import kuzu
import pytest

from memexplorer.memory.security import SECRET_PATTERNS, CredentialScrubber, find_secrets

MANIFEST = json.loads((Path(__file__).parents[1] / "fixtures" / "MANIFEST.json").read_text())
AUDITED = sorted(
    name for name, entry in MANIFEST["databases"].items() if entry["inventory"]["credential_audit"]
)


def _primary_key(kind: str, table: str) -> str:
    if table.lower() in {"experience", "experiences"}:
        return "experience_id"
    return "node_id" if kind == "CognitiveMemory" else "memory_id"


@contextmanager
def _field_reader(path: Path, kind: str) -> Iterator[Any]:
    """A function (table, key, id, field) -> value over a read-only store."""
    if "sqlite" in kind.lower():
        connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            yield lambda table, key, node_id, field: connection.execute(
                f"SELECT {field} FROM {table} WHERE {key} = ?", (node_id,)
            ).fetchone()[0]
        finally:
            connection.close()
        return
    database = kuzu.Database(str(path), read_only=True)
    connection = kuzu.Connection(database)

    def read(table: str, key: str, node_id: str, field: str) -> Any:
        result = connection.execute(
            f"MATCH (n:{table}) WHERE n.{key} = $id RETURN n.{field}", {"id": node_id}
        )
        rows = [result.get_next()[0] for _ in iter(result.has_next, False)]
        assert len(rows) == 1, (table, node_id)
        return rows[0]

    try:
        yield read
    finally:
        connection.close()
        database.close()


def test_the_audit_covers_several_stores():
    assert len(AUDITED) == 7
    flagged = sum(len(MANIFEST["databases"][n]["inventory"]["credential_audit"]) for n in AUDITED)
    assert flagged == 30


@pytest.mark.parametrize("store", AUDITED)
def test_every_flagged_field_is_found(reference_stores, manifest, store):
    entry = manifest["databases"][store]
    scrubber = CredentialScrubber()
    with _field_reader(reference_stores / store, entry["kind"]) as read:
        for flagged in entry["inventory"]["credential_audit"]:
            table = flagged["table"]
            key = _primary_key(entry["kind"], table)
            value = read(table, key, flagged["id"], flagged["field"])
            where = f"{store}:{table}:{flagged['id']}.{flagged['field']}"

            findings = find_secrets(value)
            assert findings, where
            for finding in findings:
                assert value[finding.start : finding.end] not in finding.preview, where

            for reference_kind in flagged["patterns"]:
                rows = [p for p in SECRET_PATTERNS if p.kind == reference_kind]
                assert any(p.regex.search(value) for p in rows), (where, reference_kind)

            scrubbed, changed = scrubber.scrub_text(value)
            assert changed, where
            for secret in {value[f.start : f.end] for f in findings}:
                assert scrubbed.count(secret) < value.count(secret), (where, secret)
            assert find_secrets(scrubbed) == [], where
