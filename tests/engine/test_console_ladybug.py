"""A console query on a LadybugDB store runs in its own process too, and its nodes
come back spelt as kuzu spells them: the child loads the worker's renaming from the
folder it lives in (storage), so it must live beside ``ladybug_worker.py``."""

from __future__ import annotations

from memexplorer.operator.browse import open_browser
from memexplorer.operator.console_run import QueryProcess, runs_in_a_process

OPS = "home/.amplihack/hierarchical_memory/ops-agent/ladybug_db"


def test_a_ladybug_console_query_in_its_own_process_answers_in_kuzu_spelling(
    ladybug_stores, ladybug_manifest
):
    episodes = ladybug_manifest["databases"][OPS]["inventory"]["node_tables"]["EpisodicMemory"]
    browser = open_browser(ladybug_stores / OPS)
    try:
        assert runs_in_a_process(browser)
        process = QueryProcess(browser)
        try:
            names, rows, more = process.rows(
                "MATCH (e:EpisodicMemory) RETURN e ORDER BY e.memory_id", 3, 30.0
            )
        finally:
            process.discard()
        counted = QueryProcess(browser)
        try:
            _, total, _ = counted.rows("MATCH (e:EpisodicMemory) RETURN count(e)", 5, 30.0)
        finally:
            counted.discard()
    finally:
        browser.close()
    assert total == [[episodes["count"]]] and episodes["count"] == 22
    assert names == ["e"] and more is True and len(rows) == 3
    node = rows[0][0]
    assert node["_label"] == "EpisodicMemory" and "_LABEL" not in node
    assert sorted(row[0]["memory_id"] for row in rows) == [row[0]["memory_id"] for row in rows]
