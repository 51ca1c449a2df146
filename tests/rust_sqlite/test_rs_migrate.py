"""`memexplorer migrate` between amplihack-rs's SQLite store and the graph engines:
counts checked against the MANIFEST, and a round trip SQLite -> graph -> SQLite
keeps every node and edge (the Rust export of the result equals the fixture's)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from .rust_reference import FOLDER, canonical, rust_export

GRAPH = {"semantic_memories": "SemanticMemory", "episodic_memories": "EpisodicMemory",
         "similar_to_edges": "SIMILAR_TO", "derives_from_edges": "DERIVES_FROM",
         "supersedes_edges": "SUPERSEDES", "transitioned_to_edges": "TRANSITIONED_TO"}  # fmt: skip


def _migrate(source, target, engine: str) -> dict:
    result = subprocess.run(
        [sys.executable, "-m", "memexplorer", "migrate", str(source), str(target),
         "--engine", engine, "--json"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


@pytest.mark.parametrize(
    ("agent", "engine"),
    [("ops-agent", "kuzu"), ("support-bot", "kuzu"), ("research-agent", "ladybug")],
)
def test_round_trip_through_a_graph_store_keeps_every_node_and_edge(
    rust_sqlite_home, rust_sqlite_manifest, tmp_path, agent, engine
):
    source = rust_sqlite_home / FOLDER / f"{agent}.db"
    before = source.read_bytes()
    expected = rust_sqlite_manifest["databases"][f"{FOLDER}/{agent}.db"]["counts"][agent]
    there = _migrate(source, tmp_path / "graph_db", engine)
    assert there["counts_match"] and there["target_engine"] == engine
    assert there["agents"][agent]["target"] == {GRAPH[t]: n for t, n in expected.items()}
    back = _migrate(tmp_path / "graph_db", tmp_path / f"{agent}.db", "sqlite")
    assert back["counts_match"] and back["target_engine"] == "sqlite"
    original = json.loads((rust_sqlite_home / f"rust_exports/{agent}.json").read_text())
    assert canonical(rust_export(tmp_path / f"{agent}.db", agent)) == canonical(original)
    assert source.read_bytes() == before
    assert oct((tmp_path / f"{agent}.db").stat().st_mode & 0o777) == "0o600"


def test_a_kuzu_era_store_migrates_into_the_rust_schema(reference_stores, manifest, tmp_path):
    store = "home/.amplihack/hierarchical_memory/support-bot/kuzu_db"
    result = _migrate(reference_stores / store, tmp_path / "support-bot.db", "sqlite")
    assert result["counts_match"]
    inventory = manifest["databases"][store]["inventory"]
    expected = {t: e["count"] for t, e in inventory["node_tables"].items()}
    expected |= {t: e["count"] for t, e in inventory["rel_tables"].items()}
    target = result["agents"]["support-bot"]["target"]
    assert {t: target[t] for t in expected} == expected
