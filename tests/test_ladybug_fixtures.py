"""The LadybugDB-era reference stores are what their MANIFEST says, checked without ladybug.

ladybug cannot be imported beside kuzu, so this file reads bytes, JSON and
sqlite only; tests that open the stores belong with the storage seam.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import struct
from pathlib import Path

import pytest

EXPORT_STATISTICS = {
    "semantic_nodes": "semantic_node_count",
    "episodic_nodes": "episodic_node_count",
    "similar_to_edges": "similar_to_edge_count",
    "derives_from_edges": "derives_from_edge_count",
    "supersedes_edges": "supersedes_edge_count",
}


def _graph_stores(manifest: dict) -> list[str]:
    return [rel for rel, entry in manifest["databases"].items() if "header" in entry]


def _export_files(root: Path) -> dict[str, dict]:
    """Each export_to_json() file, parsed, by file name."""
    out: dict[str, dict] = {}
    for path in sorted((root / "exports").glob("*.export_to_json.json")):
        data = json.loads(path.read_text())
        out[path.name] = data
    return out


def test_every_manifest_file_is_in_the_tarball(
    ladybug_stores: Path, ladybug_manifest: dict
) -> None:
    for line in ladybug_manifest["files"]:
        name, _, size = line.partition("  (")
        path = ladybug_stores / name.rstrip("/")
        assert path.exists(), name
        if size:
            assert path.stat().st_size == int(size.removesuffix(" bytes)")), name


def test_graph_stores_are_single_lbug_files_with_the_recorded_version(
    ladybug_stores: Path, ladybug_manifest: dict
) -> None:
    stores = _graph_stores(ladybug_manifest)
    assert len(stores) == 7
    for rel in stores:
        path = ladybug_stores / rel
        assert path.is_file(), rel
        head = path.read_bytes()[:12]
        header = ladybug_manifest["databases"][rel]["header"]
        assert head[:4] == b"LBUG" == header["magic"].encode(), rel
        version = struct.unpack("<Q", head[4:12])[0]
        assert version == header["storage_version"] == ladybug_manifest["storage_version"], rel
        assert version >= 40, rel
        assert not path.with_name(path.name + ".wal").exists(), rel


def test_store_bytes_match_the_recorded_checksums(
    ladybug_stores: Path, ladybug_manifest: dict
) -> None:
    for rel, entry in ladybug_manifest["databases"].items():
        digest = hashlib.sha256((ladybug_stores / rel).read_bytes()).hexdigest()
        assert digest == entry["sha256"], rel


def test_exports_parse_and_match_the_hierarchical_inventories(
    ladybug_stores: Path, ladybug_manifest: dict
) -> None:
    exports = _export_files(ladybug_stores)
    assert len(exports) == 5
    by_agent = {data["agent_name"]: data for data in exports.values()}
    databases = ladybug_manifest["databases"]
    hierarchical = {
        rel: entry for rel, entry in databases.items() if entry["kind"] == "HierarchicalMemory"
    }
    seen = 0
    for entry in hierarchical.values():
        inventory = entry["inventory"]
        for agent in entry["agents"]:
            if agent not in by_agent:
                continue
            seen += 1
            data = by_agent[agent]
            assert data["format_version"] == "1.0"
            nodes = inventory["node_tables"]
            rels = inventory["rel_tables"]
            assert len(data["semantic_nodes"]) == nodes["SemanticMemory"]["per_agent"][agent]
            assert len(data["episodic_nodes"]) == nodes["EpisodicMemory"]["per_agent"][agent]
            for key, table in (
                ("similar_to_edges", "SIMILAR_TO"),
                ("derives_from_edges", "DERIVES_FROM"),
                ("supersedes_edges", "SUPERSEDES"),
            ):
                expected = rels[table]["per_agent_of_source"].get(agent, 0)
                assert len(data[key]) == expected, (agent, key)
            stats = entry["library_statistics"][agent]
            assert len(data["semantic_nodes"]) == stats["semantic_nodes"]
            assert len(data["episodic_nodes"]) == stats["episodic_nodes"]
            for key, stat_key in EXPORT_STATISTICS.items():
                assert data["statistics"][stat_key] == len(data[key]), (agent, key)
    assert seen == 5


def test_ladybug_era_replays_the_kuzu_era_content(ladybug_manifest: dict, manifest: dict) -> None:
    """Equivalent stores of the two eras hold the same counts and the same catalog."""
    for kuzu_rel, kuzu_entry in manifest["databases"].items():
        if kuzu_entry["kind"] != "HierarchicalMemory" or kuzu_rel.startswith("shared"):
            continue
        if "fresh-agent" in kuzu_rel:
            continue
        lb_entry = ladybug_manifest["databases"][kuzu_rel.replace("kuzu_db", "ladybug_db")]
        for kind in ("node_tables", "rel_tables"):
            kuzu_tables = kuzu_entry["inventory"][kind]
            lb_tables = lb_entry["inventory"][kind]
            assert sorted(kuzu_tables) == sorted(lb_tables)
            for name, table in kuzu_tables.items():
                assert lb_tables[name]["count"] == table["count"], (kuzu_rel, name)
                assert lb_tables[name]["columns"] == table["columns"], (kuzu_rel, name)


def test_deleted_rows_are_recorded_and_not_counted(ladybug_manifest: dict) -> None:
    databases = ladybug_manifest["databases"]
    cognitive = databases["cognitive_db"]
    working = cognitive["inventory"]["node_tables"]["WorkingMemory"]
    log = cognitive["generation_log"]
    deleted = len(log["working"]["evicted_ids"]) + log["working"]["cleared"]
    assert deleted > 0
    assert working["stored_rows"] - working["count"] == deleted
    sensory = cognitive["inventory"]["node_tables"]["SensoryMemory"]
    assert sensory["stored_rows"] - sensory["count"] == log["sensory"]["pruned"] > 0
    experience = databases["home/.amplihack/memory/ops-agent/ladybug_db"]
    generation = experience["generation"]
    table = experience["inventory"]["node_tables"]["Experience"]
    assert table["count"] == generation["added"] - len(generation["deleted_ids"])
    assert table["stored_rows"] == generation["added"]


def test_sqlite_experience_store_matches_manifest(
    ladybug_stores: Path, ladybug_manifest: dict, tmp_path: Path
) -> None:
    rel = "home/.amplihack/memory/ops-agent/experiences.db"
    entry = ladybug_manifest["databases"][rel]
    copy = tmp_path / "experiences.db"
    copy.write_bytes((ladybug_stores / rel).read_bytes())
    conn = sqlite3.connect(copy)
    try:
        total = conn.execute("SELECT count(*) FROM experiences").fetchone()[0]
        ids = {r[0] for r in conn.execute("SELECT experience_id FROM experiences")}
    finally:
        conn.close()
    assert total == entry["inventory"]["experiences_total"]
    assert total == entry["generation"]["statistics"]["total_experiences"]
    assert ids.isdisjoint(entry["generation"]["deleted_ids"])
    assert set(entry["generation"]["late_ids"]) <= ids


@pytest.mark.parametrize("field", ["tags", "metadata"])
def test_hierarchical_exports_decode_structured_fields(ladybug_stores: Path, field: str) -> None:
    """Exports hold decoded JSON even though the stores keep base64 of JSON."""
    data = json.loads((ladybug_stores / "exports" / "ops-agent.export_to_json.json").read_text())
    expected_type = list if field == "tags" else dict
    assert all(isinstance(node[field], expected_type) for node in data["semantic_nodes"])
