"""The staged replace import: what a fresh file may stand in for, and the moment the
new store is renamed into place. Expected values are written out by hand."""

from __future__ import annotations

import copy
import json
import os
import stat
import subprocess
import sys
from pathlib import Path

from memexplorer.operator.transfer import import_agent_store
from memexplorer.storage import atomic_files
from memexplorer.storage.graphdb import KuzuStore

OPS = "home/.amplihack/hierarchical_memory/ops-agent/kuzu_db"
EXPORT = "exports/ops-agent.export_to_json.json"


def _single_agent_store(reference_stores: Path, tmp_path: Path) -> Path:
    """ops-agent alone in a store of the spec's tables, written by an import."""
    store = tmp_path / "alone" / "kuzu_db"
    import_agent_store("ops-agent", reference_stores / EXPORT, storage_path=store)
    return store


def test_a_table_outside_the_spec_survives_a_replace_import(reference_stores, tmp_path):
    """A store holding a table of its own is copied, not started afresh: the table
    and its row are still there after ops-agent's data is replaced."""
    store = _single_agent_store(reference_stores, tmp_path)
    with KuzuStore(store, read_only=False) as graph:
        graph.execute("CREATE NODE TABLE Note(code INT64, body STRING, PRIMARY KEY(code))")
        graph.execute("CREATE (:Note {code: 7, body: 'kept by the operator'})")
    import_agent_store("ops-agent", reference_stores / EXPORT, storage_path=store)
    with KuzuStore(store) as graph:
        assert graph.rows("MATCH (n:Note) RETURN n.code, n.body") == [[7, "kept by the operator"]]
        assert graph.scalar("MATCH (m:SemanticMemory) RETURN count(m)") == 84


def test_a_rel_table_outside_the_spec_survives_a_replace_import(reference_stores, tmp_path):
    store = _single_agent_store(reference_stores, tmp_path)
    with KuzuStore(store, read_only=False) as graph:
        graph.execute("CREATE REL TABLE SEE_ALSO(FROM SemanticMemory TO SemanticMemory)")
    import_agent_store("ops-agent", reference_stores / EXPORT, storage_path=store)
    with KuzuStore(store) as graph:
        assert "SEE_ALSO" in graph.rel_tables()


def test_a_replace_saves_the_old_store_and_a_merge_does_not(reference_stores, tmp_path):
    store = _single_agent_store(reference_stores, tmp_path)
    home = tmp_path / "home"
    replaced = import_agent_store(
        "ops-agent", reference_stores / EXPORT, storage_path=store, home=home
    )
    assert replaced.store_backup is not None and replaced.store_backup.is_dir()
    merged = import_agent_store(
        "ops-agent", reference_stores / EXPORT, storage_path=store, home=home, merge=True
    )
    assert merged.store_backup is None


def test_the_new_store_is_private_at_the_moment_it_is_renamed_in(
    reference_stores, tmp_path, monkeypatch
):
    store = _single_agent_store(reference_stores, tmp_path)
    modes: list[int] = []
    real_replace = os.replace

    def replace(source, target, **kwargs):
        if Path(target) == store:
            modes.append(stat.S_IMODE(os.stat(source).st_mode))
        return real_replace(source, target, **kwargs)

    monkeypatch.setattr(atomic_files.os, "replace", replace)
    import_agent_store("ops-agent", reference_stores / EXPORT, storage_path=store)
    assert modes == [0o600]


def test_a_stale_shadow_file_does_not_outlive_the_replaced_store(reference_stores, tmp_path):
    """Left by a writer of the OLD file, it would be read as the new file's."""
    store = _single_agent_store(reference_stores, tmp_path)
    shadow = store.with_name(store.name + ".shadow")
    shadow.write_bytes(b"")
    import_agent_store("ops-agent", reference_stores / EXPORT, storage_path=store)
    assert not shadow.exists()
    data = json.loads((reference_stores / EXPORT).read_text())
    with KuzuStore(store) as graph:
        assert graph.scalar("MATCH (m:SemanticMemory) RETURN count(m)") == len(
            data["semantic_nodes"]
        )


def test_replacing_an_agent_alone_leaves_none_of_its_old_values_bytes(reference_stores, tmp_path):
    """The store of one agent is rebuilt from an empty file, so a value the new export
    no longer holds is gone from the file's bytes too (a copy with the rows deleted
    would keep them in its pages)."""
    data = json.loads((reference_stores / EXPORT).read_text())
    marked = copy.deepcopy(data)
    marked["semantic_nodes"][0]["content"] = "ZEBRA-OLD-VALUE-4711 " * 20
    first = tmp_path / "marked.json"
    first.write_text(json.dumps(marked))
    store = tmp_path / "alone" / "kuzu_db"
    import_agent_store("ops-agent", first, storage_path=store)
    assert b"ZEBRA-OLD-VALUE-4711" in store.read_bytes()
    import_agent_store("ops-agent", reference_stores / EXPORT, storage_path=store)
    assert b"ZEBRA-OLD-VALUE-4711" not in store.read_bytes()


def test_a_log_left_by_the_stores_writer_is_kept_by_a_merge(reference_stores, tmp_path):
    """A writer killed after committing leaves its rows in the write-ahead log; the
    import folds the log into the file before copying it, so those rows survive."""
    store = _single_agent_store(reference_stores, tmp_path)
    script = (
        "import kuzu, os, sys\n"
        "db = kuzu.Database(sys.argv[1]); c = kuzu.Connection(db)\n"
        'c.execute("MATCH (m:SemanticMemory) WITH m LIMIT 1 '
        "CREATE (:SemanticMemory {memory_id: 'from-the-log', concept: 'c', content: 'x', "
        "confidence: 0.5, source_id: '', agent_id: 'ops-agent', tags: [], metadata: '{}', "
        "created_at: m.created_at, entity_name: ''})\")\n"
        "os._exit(0)\n"
    )
    subprocess.run([sys.executable, "-c", script, str(store)], check=True)
    assert store.with_name(store.name + ".wal").exists()
    import_agent_store("ops-agent", reference_stores / EXPORT, storage_path=store, merge=True)
    with KuzuStore(store) as graph:
        assert (
            graph.scalar("MATCH (m:SemanticMemory {memory_id: 'from-the-log'}) RETURN count(m)")
            == 1
        )
