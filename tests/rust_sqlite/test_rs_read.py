"""Reading amplihack-rs's SQLite hierarchical stores: discovery, stats, browsing, and
never a changed byte. Expected values come from rust-sqlite-MANIFEST.json and the
Rust export the fixture script wrote (rust_exports/), never from memexplorer."""

from __future__ import annotations

import json
import subprocess
import sys

from store_helpers import checksums

from memexplorer.operator.browse import PageQuery, open_browser
from memexplorer.operator.rs_sqlite_browse import RsSqliteBrowser
from memexplorer.storage.stores import find_stores

HOME = "home/.amplihack"
RELS = {"similar_to_edges": "SIMILAR_TO", "derives_from_edges": "DERIVES_FROM",
        "supersedes_edges": "SUPERSEDES", "transitioned_to_edges": "TRANSITIONED_TO"}  # fmt: skip


def test_discovery_finds_every_agent_file(rust_sqlite_home, rust_sqlite_manifest):
    found = {str(f.path.relative_to(rust_sqlite_home)) for f in find_stores(rust_sqlite_home)}
    assert found == set(rust_sqlite_manifest["databases"])


def test_stats_json_counts_equal_the_manifest_and_change_nothing(
    rust_sqlite_home, rust_sqlite_manifest
):
    before = checksums(rust_sqlite_home)
    result = subprocess.run(
        [sys.executable, "-m", "memexplorer", "stats", str(rust_sqlite_home / HOME), "--json"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    stores = {s["path"]: s for s in json.loads(result.stdout)["stores"]}
    assert len(stores) == len(rust_sqlite_manifest["databases"]) == 4
    for name, entry in rust_sqlite_manifest["databases"].items():
        store = stores[str(rust_sqlite_home / name)]
        assert (store["kind"], store["engine"]) == ("hierarchical", "sqlite")
        assert store["agents"] == entry["counts"], name
    assert checksums(rust_sqlite_home) == before


def test_tables_pages_and_edges_of_each_agent(rust_sqlite_home, rust_sqlite_manifest):
    before = checksums(rust_sqlite_home)
    for name, entry in rust_sqlite_manifest["databases"].items():
        browser = open_browser(rust_sqlite_home / name)
        try:
            assert isinstance(browser, RsSqliteBrowser)
            assert browser.agents() == entry["agents"]
            for agent, counts in entry["counts"].items():
                tables = {t.name: t for t in browser.tables(agent)}
                assert {t: tables[t].count for t in counts} == counts
                for table, count in counts.items():
                    page = browser.page(tables[table], agent, PageQuery(0, 1000))
                    assert page.total == count and page.data.num_rows == count
        finally:
            browser.close()
    assert checksums(rust_sqlite_home) == before


def _edge_sets(export: dict) -> dict[tuple[str, str], set[tuple[str, str]]]:
    """(fact, rel/direction) -> {(neighbour, rel)} from a Rust export file."""
    sets: dict[tuple[str, str], set[tuple[str, str]]] = {}
    for key, rel in RELS.items():
        for edge in export[key]:
            sets.setdefault((edge["source_id"], "out"), set()).add((edge["target_id"], rel))
            sets.setdefault((edge["target_id"], "in"), set()).add((edge["source_id"], rel))
    return sets


def test_node_view_lists_the_edges_the_rust_export_holds(rust_sqlite_home):
    for agent in ("ops-agent", "research-agent", "support-bot"):
        export = json.loads((rust_sqlite_home / f"rust_exports/{agent}.json").read_text())
        expected = _edge_sets(export)
        browser = open_browser(rust_sqlite_home / f"{HOME}/hierarchical_memory/{agent}.db")
        try:
            for table, key in (("semantic_memories", "semantic_nodes"),
                               ("episodic_memories", "episodic_nodes")):  # fmt: skip
                for node in export[key]:
                    detail = browser.node(table, node["memory_id"])
                    assert detail.properties["content"] == node["content"]
                    for direction in ("out", "in"):
                        shown = {
                            (e.neighbour_key, e.rel)
                            for (_, d), edges in detail.edges.items()
                            if d == direction
                            for e in edges
                        }
                        assert shown == expected.get((node["memory_id"], direction), set())
        finally:
            browser.close()


def test_superseded_facts_are_flagged(rust_sqlite_home):
    browser = open_browser(rust_sqlite_home / f"{HOME}/hierarchical_memory/research-agent.db")
    try:
        assert browser.node("semantic_memories", "res-sota-2").flags == ["superseded by res-sota-3"]
        assert browser.node("semantic_memories", "res-sota-4").flags == []
    finally:
        browser.close()


def _sqlite_order(db, sql: str) -> list:
    import sqlite3

    with sqlite3.connect(f"{db.as_uri()}?mode=ro", uri=True) as conn:
        return [row[0] for row in conn.execute(sql)]


def test_pages_read_from_either_end_join_up_in_order(rust_sqlite_home):
    db = rust_sqlite_home / f"{HOME}/hierarchical_memory/ops-agent.db"
    browser = open_browser(db)
    try:
        tables = {t.name: t for t in browser.tables("ops-agent")}
        cases = [
            ("semantic_memories", "confidence", True, "memory_id",
             "SELECT memory_id FROM semantic_memories ORDER BY confidence DESC, rowid DESC"),
            ("semantic_memories", None, False, "memory_id",
             "SELECT memory_id FROM semantic_memories ORDER BY rowid"),
            ("similar_to_edges", "weight", False, "id",
             "SELECT id FROM similar_to_edges ORDER BY weight, id"),
        ]  # fmt: skip
        for name, sort, descending, key, sql in cases:
            expected = _sqlite_order(db, sql)
            shown = []
            for offset in range(0, len(expected), 5):
                page = browser.page(tables[name], "ops-agent",
                                    PageQuery(offset, 5, sort, descending))  # fmt: skip
                shown += page.data.column(key).to_pylist()
            assert shown == expected, name
    finally:
        browser.close()
