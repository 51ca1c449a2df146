"""Whole-store backups (taken before a console write) restore the store as it was."""

from __future__ import annotations

import sqlite3
from contextlib import closing

from memexplorer.operator.backups import restore_backup
from memexplorer.operator.browse import open_browser
from memexplorer.operator.store_backup import write_store_backup

HOME = "home/.amplihack"
GRAPH = f"{HOME}/hierarchical_memory/ops-agent/kuzu_db"
SQLITE = f"{HOME}/memory/ops-agent/experiences.db"


def test_a_graph_store_comes_back_whole(reference_stores):
    store = reference_stores / GRAPH
    browser = open_browser(store, writable=True)
    try:
        record = write_store_backup(reference_stores / HOME, browser, action="console-write",
                                    kind="hierarchical")  # fmt: skip
        assert record.engine == "kuzu"
        browser.graph.execute("MATCH (m:SemanticMemory) SET m.concept = 'changed'")
    finally:
        browser.close()
    result = restore_backup(record.path)
    assert result.whole_store and result.restored == 0
    browser = open_browser(store)
    try:
        concepts = {
            row[0] for row in browser.graph.rows("MATCH (m:SemanticMemory) RETURN m.concept")
        }
    finally:
        browser.close()
    assert "changed" not in concepts and len(concepts) > 1


def test_a_sqlite_store_comes_back_whole(reference_stores):
    store = reference_stores / SQLITE
    with closing(sqlite3.connect(store)) as db:
        before = db.execute("SELECT * FROM experiences ORDER BY 1").fetchall()
    browser = open_browser(store, writable=True)
    try:
        record = write_store_backup(reference_stores / HOME, browser, action="console-write",
                                    kind="experience")  # fmt: skip
        assert record.engine == "sqlite"
    finally:
        browser.close()
    with closing(sqlite3.connect(store)) as db:
        db.execute("DELETE FROM experiences")
        db.commit()
    result = restore_backup(record.path)
    assert result.whole_store
    with closing(sqlite3.connect(store)) as db:
        assert db.execute("SELECT * FROM experiences ORDER BY 1").fetchall() == before


def test_the_difference_a_whole_store_restore_makes(reference_stores, manifest):
    """Changed facts count once each way; deleted episodes come back; counts from
    the MANIFEST (84 semantic, 22 episodic in ops-agent), not from memexplorer."""
    from memexplorer.operator.backup_diff import whole_store_difference

    counts = manifest["databases"][GRAPH.removeprefix("")]["library_statistics"]["ops-agent"]
    store = reference_stores / GRAPH
    browser = open_browser(store, writable=True)
    try:
        record = write_store_backup(reference_stores / HOME, browser, action="console-write",
                                    kind="hierarchical")  # fmt: skip
        assert record.whole_store
        same = whole_store_difference(record, browser)
        assert same.differing == {} and same.copied_at == record.created_at
        changed = browser.graph.rows(
            "MATCH (m:SemanticMemory) WITH m ORDER BY m.memory_id LIMIT 3 "
            "SET m.concept = 'changed' RETURN count(m)"
        )[0][0]
        browser.graph.execute("MATCH (e:EpisodicMemory) DETACH DELETE e")
        difference = whole_store_difference(record, browser)
    finally:
        browser.close()
    assert changed == 3
    assert difference.tables["SemanticMemory"].lost == 3
    assert difference.tables["SemanticMemory"].back == 3
    assert difference.tables["EpisodicMemory"].lost == 0
    assert difference.tables["EpisodicMemory"].back == counts["episodic_nodes"] == 22
    assert difference.tables["DERIVES_FROM"].back == counts["derives_from_edges"]
    assert "SIMILAR_TO" not in difference.differing  # no edge touched an episode


def test_restore_asks_with_what_a_whole_store_copy_undoes(reference_stores, monkeypatch):
    """The CLI's confirm of a console-write backup said 'Write 0 saved rows … back';
    it now says the whole store goes back, when it was copied and what that undoes."""
    from memexplorer.cli.commands import confirm
    from memexplorer.cli.main import main

    store = reference_stores / GRAPH
    browser = open_browser(store, writable=True)
    try:
        record = write_store_backup(reference_stores / HOME, browser, action="console-write",
                                    kind="hierarchical")  # fmt: skip
        browser.graph.execute("MATCH (e:EpisodicMemory) DETACH DELETE e")
    finally:
        browser.close()
    asked: list[str] = []
    monkeypatch.setattr(confirm, "ask", lambda question: asked.append(question) or False)
    assert main(["restore", str(record.path)]) == 0
    assert asked[0].startswith(f"Put back the WHOLE of {store} as it was at ")
    assert f"{record.created_at:%Y-%m-%d %H:%M:%S} UTC" in asked[0]
    assert "EpisodicMemory: 0 go, 22 come back" in asked[0]
    assert "0 rows now in the store go" in asked[0]
