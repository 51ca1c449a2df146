"""The credential audit: every flagged field of the reference stores, masked previews,
generic tables, the candidate filter, read-only scanning."""

from __future__ import annotations

import sqlite3

import pytest
from store_helpers import checksums

from memexplorer.memory.security import SECRET_PATTERNS, find_secrets
from memexplorer.operator.audit import NEEDLES, audit_paths, audit_store, mask_secrets
from memexplorer.storage.graphdb import KuzuStore

#: One fake secret per pattern row, in the surroundings it needs.
EXAMPLES = [
    "key -----BEGIN OPENSSH PRIVATE KEY----- b3BlbnNzaC1rZXktdjEAAAAABG5vbmU= end",
    "-----BEGIN ENCRYPTED PRIVATE KEY-----\nMIIFHzBJBgkqhkiG9w0BBQ0wPDAbBgkq\n"
    "-----END ENCRYPTED PRIVATE KEY-----",
    "id ASIAFAKE0TEST1KEY2XQ here",
    "AWS_SECRET_ACCESS_KEY: wJalrXUtnFEMI/K7MDENG/bPxRfiCYFAKEKEY000",
    "AccountKey=" + "A" * 86 + "==;EndpointSuffix",
    "token gho_" + "a1B2" * 9,
    "pat github_pat_11FAKE0000000000000000_abc",
    "sk-proj-FAKEabcdefghij1234567890",
    "use sk-FAKEabcdefghij1234567890",
    "stripe rk_test_FAKE1234567890abcd",
    "slack xoxb-1234567890-FAKE",
    "jwt eyJhbGciOi.eyJzdWIiOi.SflKxwRJSM",
    "Authorization: Bearer FAKEabcdefghij123456",
    "amqps://user:FakePass99@broker:5671",
    "postgres://user name:FakePass98@db",
    "ApiKey: FAKE-key-123",
    "PASSWORD=Fake!Pass97",
    "pwd = FakePass96",
    "TOKEN: hvs.FAKE96",
    "client_secret=FAKEsecret95",
]


def _flagged(manifest):
    for store, entry in manifest["databases"].items():
        for flagged in entry["inventory"]["credential_audit"]:
            yield store, flagged


def test_every_pattern_has_needles_that_every_match_contains():
    assert all(pattern.regex.pattern in NEEDLES for pattern in SECRET_PATTERNS)
    matched = set()
    for text in EXAMPLES:
        for row, pattern in enumerate(SECRET_PATTERNS):
            for match in pattern.regex.finditer(text):
                matched.add(row)
                needles = NEEDLES[pattern.regex.pattern]
                assert any(n in match.group(0).lower() for n in needles), (pattern.kind, text)
    assert matched == set(range(len(SECRET_PATTERNS)))


def test_the_audit_finds_every_field_the_manifest_flags(reference_stores, manifest):
    report = audit_paths([reference_stores])
    assert report.errors == []
    assert len(report.stores) == len(manifest["databases"])
    found = {(f.store, f.table, f.id, f.agent, f.column) for f in report.findings}
    for store, flagged in _flagged(manifest):
        key = (str(reference_stores / store), flagged["table"], flagged["id"], flagged["agent"])
        assert (*key, flagged["field"]) in found, (store, flagged)
    flagged_count = sum(1 for _ in _flagged(manifest))
    assert len({(s, t, i, c) for s, t, i, _, c in found}) == flagged_count


def test_no_report_holds_a_secret(reference_stores):
    report = audit_paths([reference_stores])
    text = repr(report.to_dict()) + repr(report.findings)
    for finding in report.findings:
        location = finding.location
        assert finding.preview.count("[") >= 1
        assert location.table == finding.table
    secrets = set()
    for store in report.stores:
        for finding in audit_store(store):
            # The location says where the value is; read it back and check every secret.
            value = _read_value(finding.location)
            secrets |= {value[s.start : s.end] for s in find_secrets(value)}
    real = {s for s in secrets if not s.isalpha()}  # plain words are prose false positives
    assert len(real) >= 12
    for secret in real:
        assert secret not in text, secret


def _read_value(location):
    (key, value), *_ = location.key
    if location.engine == "sqlite":
        connection = sqlite3.connect(f"file:{location.path}?mode=ro", uri=True)
        try:
            query = f"SELECT {location.column} FROM {location.table} WHERE {key} = ?"
            return connection.execute(query, (value,)).fetchone()[0]
        finally:
            connection.close()
    with KuzuStore(location.path) as graph:
        return graph.scalar(
            f"MATCH (n:{location.table}) WHERE n.{key} = $v RETURN n.{location.column}",
            {"v": value},
        )


def test_auditing_changes_no_file(reference_stores):
    before = checksums(reference_stores)
    audit_paths([reference_stores])
    assert checksums(reference_stores) == before


def test_agent_filter(reference_stores):
    shared = reference_stores / "shared_two_agents"
    assert audit_paths([shared], "triage-bot").findings == []
    [finding] = audit_paths([shared], "escalation-bot").findings
    assert finding.kind == "github_token" and finding.agent == "escalation-bot"
    ops = audit_paths([reference_stores], "ops-agent").findings
    assert ops and {f.agent for f in ops} == {"ops-agent"}


def test_previews_mask_every_copy_of_a_secret():
    text = "login password=Hunter2xyz failed; later Hunter2xyz worked again"
    masked = mask_secrets(text)
    assert "Hunter2xyz" not in masked
    assert masked.startswith("login password=[password:***] failed; later [masked]")


def test_tables_and_rels_the_spec_never_named(tmp_path):
    path = tmp_path / "custom.kuzu"
    with KuzuStore(path, read_only=False) as graph:
        graph.execute(
            "CREATE NODE TABLE Note(code INT64, owner STRING, body STRING, PRIMARY KEY(code))"
        )
        graph.execute("CREATE NODE TABLE Other(name STRING, PRIMARY KEY(name))")
        graph.execute("CREATE REL TABLE LINKS(FROM Note TO Other, why STRING)")
        for code, body in enumerate(EXAMPLES):
            graph.execute("CREATE (:Note {code: $c, owner: 'x', body: $b})", {"c": code, "b": body})
        graph.execute("CREATE (:Other {name: 'o1'})")
        graph.execute(
            "MATCH (n:Note {code: 0}), (o:Other {name: 'o1'}) "
            "CREATE (n)-[:LINKS {why: 'password: Fake!Rel1'}]->(o)"
        )
    findings = audit_store(path)
    notes = [f for f in findings if f.table == "Note"]
    assert {f.id for f in notes} == {str(code) for code in range(len(EXAMPLES))}
    assert {f.agent for f in notes} == {""}
    [link] = [f for f in findings if f.table == "LINKS"]
    assert (link.id, link.column, link.kind) == ("0->o1", "why", "password")
    assert "Fake!Rel1" not in link.preview


def test_sqlite_tables_without_a_single_key(tmp_path):
    path = tmp_path / "notes.db"
    connection = sqlite3.connect(path)
    connection.execute("CREATE TABLE loose (agent_id TEXT, body TEXT)")
    connection.execute(
        "CREATE TABLE pairs (a TEXT, b TEXT, body, PRIMARY KEY (a, b)) WITHOUT ROWID"
    )
    connection.execute("INSERT INTO loose VALUES ('bot', 'token: FAKEloose1')")
    connection.execute("INSERT INTO pairs VALUES ('x', 'y', 'pwd=FAKEpair2')")
    connection.execute("INSERT INTO pairs VALUES ('x', 'z', 42)")
    connection.commit()
    connection.close()
    findings = {f.table: f for f in audit_store(path)}
    assert (findings["loose"].id, findings["loose"].agent) == ("1", "bot")
    assert findings["loose"].location.key == (("rowid", 1),)
    assert findings["pairs"].id == "x/y"
    assert findings["pairs"].location.key == (("a", "x"), ("b", "y"))
    assert [f.table for f in audit_store(path, "bot")] == ["loose"]


def test_a_store_that_cannot_be_read_is_reported_not_fatal(reference_stores, tmp_path):
    bad = tmp_path / "broken" / "kuzu_db"
    bad.parent.mkdir()
    bad.write_bytes(b"KUZU" + (38).to_bytes(8, "little") + b"\0" * 64)
    report = audit_paths([bad.parent, reference_stores / "shared_two_agents"])
    assert len(report.findings) == 1
    assert [type(e).__name__ for e in report.errors] == ["UnsupportedEngineError"]


@pytest.mark.parametrize("agent", ["", "bad name"])
def test_bad_agent_filter_matches_nothing_rather_than_everything(reference_stores, agent):
    assert audit_paths([reference_stores / "shared_two_agents"], agent).findings == []
