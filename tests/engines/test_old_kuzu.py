"""A store written by kuzu 0.10.1 (storage version 38, a folder) read through that release.

The store is written in the test by kuzu 0.10.1 itself (tests/old_stores.py: its
own statements, in the cached release's virtualenv), so the expected rows are the
ones written.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from old_stores import write_kuzu_0101_store
from store_helpers import checksums

from memexplorer.cli.main import main
from memexplorer.storage.exceptions import UnsupportedEngineError
from memexplorer.storage.graph_open import open_graph_store

pytestmark = pytest.mark.slow


@pytest.fixture
def old_store(_installed_kuzu_0101: Path, tmp_path: Path) -> Path:
    return write_kuzu_0101_store(_installed_kuzu_0101, tmp_path / "agent" / "kuzu_db")


def test_without_the_release_the_refusal_says_what_to_run(old_store: Path, capsys):
    with pytest.raises(UnsupportedEngineError) as raised:
        open_graph_store(old_store)
    assert raised.value.add_command == "memexplorer engines add kuzu==0.10.1"
    assert "memexplorer engines add kuzu==0.10.1" in raised.value.hint
    assert main(["stats", str(old_store)]) == 2
    assert "memexplorer engines add kuzu==0.10.1" in capsys.readouterr().err
    other = old_store.parent / "memory.db"  # a second store: stats goes on past the refusal
    with sqlite3.connect(other) as db:
        db.execute("CREATE TABLE notes (id INTEGER)")
    assert main(["stats", str(old_store.parent), "--json"]) == 0
    out, err = capsys.readouterr()
    [error] = json.loads(out)["errors"]
    assert error["path"] == str(old_store) and error["error"] == "Store needs another engine"
    assert error["add_command"] == "memexplorer engines add kuzu==0.10.1"
    assert "warning: to read it: memexplorer engines add kuzu==0.10.1" in err


def test_the_release_that_wrote_it_reads_it_unchanged(
    old_store: Path, _installed_kuzu_0101: Path, monkeypatch, capsys
):
    monkeypatch.setenv("MEMEXPLORER_ENGINE_CACHE", str(_installed_kuzu_0101))
    before = checksums(old_store)
    with open_graph_store(old_store) as graph:
        assert (graph.engine, graph.storage_version) == ("kuzu", 38)
        rows = graph.rows(
            "MATCH (n:SemanticMemory) RETURN n.memory_id, n.agent_id ORDER BY n.memory_id"
        )
        edges = graph.rows(
            "MATCH (a)-[r:SIMILAR_TO]->(b) RETURN a.memory_id, r.weight, b.memory_id"
        )
    assert rows == [["fact-0", "old-agent"], ["fact-1", "old-agent"], ["fact-2", "other-agent"]]
    assert edges == [["fact-0", 0.5, "fact-1"]]
    with pytest.raises(UnsupportedEngineError, match="memexplorer only reads"):
        open_graph_store(old_store, read_only=False)
    assert main(["stats", str(old_store), "--json"]) == 0
    [summary] = json.loads(capsys.readouterr().out)["stores"]
    none = {"DERIVES_FROM": 0, "SUPERSEDES": 0}
    assert summary["agents"]["old-agent"] == {**none, "SemanticMemory": 2, "SIMILAR_TO": 1}
    assert summary["agents"]["other-agent"] == {**none, "SemanticMemory": 1, "SIMILAR_TO": 0}
    assert (summary["written_by"], summary["read_by"]) == ("kuzu 0.10.0 or 0.10.1", "kuzu 0.10.1")
    assert checksums(old_store) == before
    assert sorted(p.name for p in old_store.iterdir()) == sorted(before)


def test_migrate_copies_it_into_a_store_of_memexplorers_release(
    old_store: Path, _installed_kuzu_0101: Path, monkeypatch, tmp_path, capsys
):
    """The way forward from an old release: read through it, written by kuzu 0.11.3."""
    monkeypatch.setenv("MEMEXPLORER_ENGINE_CACHE", str(_installed_kuzu_0101))
    before = checksums(old_store)
    new = tmp_path / "new" / "kuzu_db"
    assert main(["migrate", str(old_store), str(new), "--engine", "kuzu"]) == 0
    capsys.readouterr()
    assert main(["stats", str(new), "--json"]) == 0
    [summary] = json.loads(capsys.readouterr().out)["stores"]
    assert (summary["storage_version"], summary["read_by"]) == (39, "kuzu 0.11.3")
    assert summary["agents"]["old-agent"]["SemanticMemory"] == 2
    assert summary["agents"]["other-agent"]["SemanticMemory"] == 1
    assert summary["agents"]["old-agent"]["SIMILAR_TO"] == 1
    assert checksums(old_store) == before
