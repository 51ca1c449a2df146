"""Compaction: a fresh file with the same schema, indexes and rows, swapped in only when
the copy is proven the same; deleted rows' bytes leave the store."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pyarrow as pa
import pytest
from store_helpers import checksums

import memexplorer.operator.compaction as compaction
from memexplorer.cli.main import main
from memexplorer.operator.compaction import compact_graph_store
from memexplorer.operator.row_digest import store_digest
from memexplorer.storage.exceptions import CompactionError, MemoryError
from memexplorer.storage.graph_open import open_graph_store
from memexplorer.storage.graph_schema_copy import catalog_snapshot
from memexplorer.storage.graphdb import KuzuStore

KUZU_STORES = [
    "cognitive_db",
    "home/.amplihack/hierarchical_memory/ops-agent/kuzu_db",
    "home/.amplihack/memory/ops-agent/kuzu_db",
    "shared_two_agents/kuzu_db",
]
LADYBUG_STORES = [
    "cognitive_db",
    "home/.amplihack/hierarchical_memory/research-agent/ladybug_db",
    "home/.amplihack/memory/ops-agent/ladybug_db",
    "shared_two_agents/ladybug_db",
]


def _state(path: Path) -> tuple[dict, dict]:
    with open_graph_store(path) as graph:
        return store_digest(graph), catalog_snapshot(graph)


def _check_compacts(path: Path) -> None:
    os.chmod(path, 0o640)
    rows, catalog = _state(path)
    result = compact_graph_store(path)
    assert _state(path) == (rows, catalog)
    assert result.tables == {name: digest.rows for name, digest in rows.items()}
    assert (path.stat().st_mode & 0o777) == 0o640
    assert sorted(p.name for p in path.parent.iterdir() if p.name.startswith(f".{path.name}")) == []


@pytest.mark.parametrize("store", KUZU_STORES)
def test_kuzu_stores_keep_every_row_schema_and_index(reference_stores, store):
    _check_compacts(reference_stores / store)


@pytest.mark.parametrize("store", LADYBUG_STORES)
def test_ladybug_stores_keep_every_row_and_schema(ladybug_stores, tmp_path, store):
    copy = tmp_path / "lb"
    shutil.copytree(ladybug_stores, copy, symlinks=True)
    _check_compacts(copy / store)


def test_the_hnsw_index_and_a_column_default_are_rebuilt(reference_stores):
    cognitive = reference_stores / "cognitive_db"
    compact_graph_store(cognitive)
    _, catalog = _state(cognitive)
    assert [index[1:3] for index in catalog["indexes"]] == [("semantic_embedding_idx", "HNSW")]
    shared = reference_stores / "shared_two_agents/kuzu_db"
    compact_graph_store(shared)
    columns = _state(shared)[1]["tables"]["SemanticMemory"]["columns"]
    assert ["entity_name", "STRING", "''", False] in columns


def test_deleted_rows_leave_the_file(ladybug_stores, ladybug_manifest, tmp_path):
    """The shared store's triage-bot lost 2 facts by an import; their text stays in
    the file until it is compacted."""
    shared = tmp_path / "ladybug_db"
    shutil.copy(ladybug_stores / "shared_two_agents" / "ladybug_db", shared)
    export = json.loads(
        (
            ladybug_stores / "exports" / "shared_two_agents.triage-bot.export_to_json.json"
        ).read_text()
    )
    entry = ladybug_manifest["databases"]["shared_two_agents/ladybug_db"]
    dropped_ids = entry["generation"]["restore_with_deletions"]["dropped_semantic_ids"]
    assert not any(n["memory_id"] in dropped_ids for n in export["semantic_nodes"])
    data = shared.read_bytes()
    assert all(i.encode() in data for i in dropped_ids)
    compact_graph_store(shared)
    data = shared.read_bytes()
    assert not any(i.encode() in data for i in dropped_ids)


def test_a_copy_that_differs_is_never_swapped_in(reference_stores, monkeypatch):
    store = reference_stores / "home/.amplihack/hierarchical_memory/ops-agent/kuzu_db"
    before = checksums(store.parent)
    real = compaction.digest_rows

    def one_more(data):  # what was read says one row more than the copy holds
        digest = real(data)
        return compaction.TableDigest(digest.rows + 1, digest.checksum)

    monkeypatch.setattr(compaction, "digest_rows", one_more)
    with pytest.raises(CompactionError, match="rows differ from the store's"):
        compact_graph_store(store)
    assert checksums(store.parent) == before


def test_a_value_the_engine_changed_while_copying_is_caught(reference_stores, monkeypatch):
    """Same row counts, one value different: only the checksum sees it."""
    store = reference_stores / "home/.amplihack/hierarchical_memory/ops-agent/kuzu_db"
    before = checksums(store.parent)
    real = KuzuStore.copy_arrow

    def mangling_copy(self, table, data, pair=None):
        if table == "SemanticMemory":
            column = data.schema.get_field_index("content")
            values = data.column(column).to_pylist()
            values[0] = values[0] + " (mangled)"
            data = data.set_column(column, "content", pa.array(values))
        real(self, table, data, pair)

    monkeypatch.setattr(KuzuStore, "copy_arrow", mangling_copy)
    with pytest.raises(CompactionError, match=r"rows differ from the store's \(SemanticMemory\)"):
        compact_graph_store(store)
    assert checksums(store.parent) == before


def test_a_copy_that_fails_leaves_the_store_and_no_file_behind(reference_stores, monkeypatch):
    store = reference_stores / "home/.amplihack/hierarchical_memory/ops-agent/kuzu_db"
    before = checksums(store.parent)
    real = compaction.read_tables

    def one_fact_short(graph):  # an edge then points at a fact the copy lacks
        for rows in real(graph):
            if rows.name == "SemanticMemory":
                rows = type(rows)(rows.name, rows.pair, rows.data.slice(1))
            yield rows

    monkeypatch.setattr(compaction, "read_tables", one_fact_short)
    with pytest.raises(MemoryError):
        compact_graph_store(store)
    assert checksums(store.parent) == before


def test_an_older_ladybug_store_and_a_live_log_are_refused(crashed_writer, tmp_path):
    older = tmp_path / "older_db"
    shutil.copy(crashed_writer, older)  # storage version 41, without the log: a clean store
    before = checksums(older)
    with pytest.raises(CompactionError, match="storage version 41; the installed ladybug writes"):
        compact_graph_store(older)
    assert checksums(older) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["crashed", "older_db"]


def test_a_write_ahead_log_beside_a_current_store_is_refused(ladybug_stores, tmp_path):
    store = tmp_path / "ladybug_db"
    shutil.copy(ladybug_stores / "home/.amplihack/memory/ops-agent/ladybug_db", store)
    store.with_name("ladybug_db.wal").write_bytes(b"log")
    before = checksums(tmp_path)
    with pytest.raises(CompactionError, match="A write-ahead log lies beside the store"):
        compact_graph_store(store)
    assert checksums(tmp_path) == before


def test_cli_compact_and_clean_compact(reference_stores, tmp_path, capsys):
    store = reference_stores / "shared_two_agents/kuzu_db"
    assert main(["compact", str(store.parent), "--json"]) == 0  # an agent folder names it
    [result] = json.loads(capsys.readouterr().out)
    assert result["store"] == str(store) and result["rows_verified"] is True
    assert result["engine"] == "kuzu" and result["bytes_after"] < result["bytes_before"]
    assert result["rows"]["SemanticMemory"] == 15
    sqlite = reference_stores / "home/.amplihack/memory/ops-agent/experiences.db"
    assert main(["compact", str(sqlite)]) == 0
    assert "fresh SQLite file" in capsys.readouterr().out
    ops = reference_stores / "home/.amplihack/hierarchical_memory/ops-agent/kuzu_db"
    args = ["clean", "*", "--store", str(ops), "--table", "EpisodicMemory", "--no-dry-run"]
    assert main([*args, "--yes", "--compact", "--home", str(tmp_path)]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "rewritten into a fresh Kuzu storage version 39 file, old bytes removed" in out
    assert "the backup keeps the deleted rows" in out and "rm -r -- " in out
    with open_graph_store(ops) as graph:
        assert graph.scalar("MATCH (n:EpisodicMemory) RETURN count(n)") == 0
        assert graph.scalar("MATCH (n:SemanticMemory) RETURN count(n)") == 84
