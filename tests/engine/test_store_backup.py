"""Whole-store backups (taken before a console write) restore the store as it was."""

from __future__ import annotations

import sqlite3
from contextlib import closing

from memexplorer.engine.backups import restore_backup
from memexplorer.engine.browse import open_browser
from memexplorer.engine.store_backup import write_store_backup

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
