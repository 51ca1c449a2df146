"""The staged replace import: what a fresh file may stand in for, and the moment the
new store is renamed into place. Expected values are written out by hand."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

from memexplorer.engine import transfer_import
from memexplorer.engine.graphdb import KuzuStore
from memexplorer.engine.transfer import import_agent_store

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

    monkeypatch.setattr(transfer_import.os, "replace", replace)
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
