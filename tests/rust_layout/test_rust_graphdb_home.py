"""The Rust-era graph-db reference home (tests/fixtures/make_rust_graphdb_home.py,
written with amplihack-rs's own statements on ladybug 0.15.4 and kuzu 0.11.3):
`stats --json` and `audit --json` agree with its MANIFEST, every byte stays, and
the legacy kuzu_db beside graph_db stores is never written."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from importlib.util import find_spec

import pytest
from store_helpers import checksums

from memexplorer.cli.main import main

pytestmark = pytest.mark.skipif(
    find_spec("ladybug") is None and not os.environ.get("CI"),
    reason="needs the ladybug extra: pip install 'memexplorer[ladybug]'",
)


def _expected_counts(entry: dict) -> dict[str, dict[str, int]]:
    """Rows per agent and table, from the MANIFEST (absent tables count 0); a flat
    store's agents count their memory tables only."""
    inventory = entry["inventory"]
    if entry["kind"].startswith("flat"):
        return {agent: {t: info["per_agent"].get(agent, 0)
                        for t, info in inventory["node_tables"].items() if "per_agent" in info}
                for agent in entry["agents"]}  # fmt: skip
    counts: dict[str, dict[str, int]] = {agent: {} for agent in entry["agents"]}
    for table, info in inventory["node_tables"].items():
        for agent in counts:
            counts[agent][table] = info["per_agent"].get(agent, 0)
    for table, info in inventory["rel_tables"].items():
        for agent in counts:
            counts[agent][table] = info["per_agent_of_source"].get(agent, 0)
    return counts


def test_stats_json_equals_the_manifest(rust_graphdb_home, rust_graphdb_manifest):
    before = checksums(rust_graphdb_home)
    result = subprocess.run(
        [sys.executable, "-m", "memexplorer", "stats", str(rust_graphdb_home), "--json"],
        capture_output=True, text=True,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    stores = {s["path"]: s for s in json.loads(result.stdout)["stores"]}
    databases = rust_graphdb_manifest["databases"]
    assert set(stores) == {str(rust_graphdb_home / rel) for rel in databases}
    for rel, entry in databases.items():
        found = stores[str(rust_graphdb_home / rel)]
        assert found["kind"] == ("flat" if entry["kind"].startswith("flat") else "hierarchical")
        assert (found["engine"], found["storage_version"]) == (
            entry["engine"], entry["header"]["storage_version"])  # fmt: skip
        got = {a: {t: found["agents"].get(a, {}).get(t, 0) for t in tables}
               for a, tables in _expected_counts(entry).items()}  # fmt: skip
        assert got == _expected_counts(entry), rel
    assert checksums(rust_graphdb_home) == before


def test_audit_finds_exactly_the_planted_credentials(
    rust_graphdb_home, rust_graphdb_manifest, capsys
):
    before = checksums(rust_graphdb_home)
    assert main(["audit", str(rust_graphdb_home), "--json"]) == 1
    findings = json.loads(capsys.readouterr().out)["findings"]
    rows = {(f["store"], f["table"], f["id"], f["column"], f["agent"]) for f in findings}
    expected = {
        (str(rust_graphdb_home / rel), flag["table"], flag["id"], flag["field"], flag["agent"])
        for rel, entry in rust_graphdb_manifest["databases"].items()
        for flag in entry["inventory"]["credential_audit"]
    }
    assert rows == expected
    assert len(findings) == len(expected)  # one secret per planted field
    assert checksums(rust_graphdb_home) == before


def test_deleted_rows_are_tombstones_the_counts_leave_out(rust_graphdb_manifest):
    # A check of the fixture itself: the replace import's deletions are visible.
    deploy = rust_graphdb_manifest["databases"][
        "home/.amplihack/hierarchical_memory/deploy-agent/graph_db"]  # fmt: skip
    second = deploy["imports"][1]
    assert (second["merge"], len(second["deleted"])) == (False, 5)
    semantic = deploy["inventory"]["node_tables"]["SemanticMemory"]
    assert semantic["stored_rows"] - semantic["count"] == 10  # the first import, cleared


def test_writes_to_the_legacy_kuzu_db_name_the_migrate_command(rust_graphdb_home, capsys):
    home = rust_graphdb_home / "home" / ".amplihack"
    payload = rust_graphdb_home / "imports" / "legacy-agent.json"
    legacy = home / "hierarchical_memory" / "legacy-agent" / "kuzu_db"
    before = checksums(legacy)
    assert main(["import", "legacy-agent", str(payload), "--home", str(home)]) == 1
    err = capsys.readouterr().err
    assert "Legacy store is read-only" in err
    assert f"memexplorer migrate {legacy} {legacy.with_name('graph_db')} --engine ladybug" in err
    assert checksums(legacy) == before


def test_tree_auto_detects_graph_db_and_lists_the_live_sessions(
    rust_graphdb_home, rust_graphdb_manifest, capsys, monkeypatch
):
    # resolve_backend_with_autodetect: a graph_db under hierarchical_memory/ -> graph-db.
    monkeypatch.setenv("HOME", str(rust_graphdb_home / "home"))
    monkeypatch.delenv("AMPLIHACK_MEMORY_BACKEND", raising=False)
    assert main(["tree", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert (data["backend"], data["resolution"]["source"]) == ("graph-db", "auto-detect")
    assert data["path"].endswith("home/.amplihack/memory_graph.db")
    flat = rust_graphdb_manifest["databases"]["home/.amplihack/memory_graph.db"]
    deleted = {d["session_id"] for d in flat["deleted_sessions"]}
    expected: dict[str, set[str]] = {}
    for learning in flat["learnings"]:
        if learning["memory_id"] and learning["session_id"] not in deleted:
            expected.setdefault(learning["session_id"], set()).add(learning["memory_id"])
    shown = {s["session_id"]: {m["memory_id"] for m in s["memories"]} for s in data["sessions"]}
    assert shown == expected
