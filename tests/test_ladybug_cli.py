"""LadybugDB-era stores through the CLI: stats (same shape as Kuzu's, counts equal to
the manifest, files unchanged), store discovery by name, and export/import between
the two engines keeping every node and edge."""

from __future__ import annotations

import base64
import json
import os
import shutil
from importlib.util import find_spec
from pathlib import Path

import pytest
from store_helpers import checksums

from memexplorer.cli.main import main
from memexplorer.memory.hierarchical_schema import loads_json
from memexplorer.operator.agent_memory import agent_store_path
from memexplorer.storage.stores import find_stores, resolve_hierarchical_path, sniff

# CI installs the extra: there a missing ladybug fails these tests instead of skipping them.
pytestmark = pytest.mark.skipif(
    find_spec("ladybug") is None and not os.environ.get("CI"),
    reason="needs the ladybug extra: pip install 'memexplorer[ladybug]'",
)

MANIFEST_STORES = [
    "home/.amplihack/hierarchical_memory/ops-agent/ladybug_db",
    "home/.amplihack/hierarchical_memory/research-agent/ladybug_db",
    "home/.amplihack/hierarchical_memory/support-bot/ladybug_db",
    "home_fresh_default/.amplihack/hierarchical_memory/fresh-agent",
    "shared_two_agents/ladybug_db",
    "cognitive_db",
    "home/.amplihack/memory/ops-agent/ladybug_db",
    "home/.amplihack/memory/ops-agent/experiences.db",
]
KINDS = {"HierarchicalMemory": "hierarchical", "CognitiveMemory": "cognitive"}
GRAPH_KEYS = (
    "semantic_nodes", "episodic_nodes", "similar_to_edges", "derives_from_edges",
    "supersedes_edges", "transitioned_to_edges",
)  # fmt: skip
LB_HOME = "home/.amplihack"


def _stats(capsys, path: Path) -> dict:
    assert main(["stats", str(path), "--json"]) == 0
    stores = json.loads(capsys.readouterr().out)["stores"]
    assert len(stores) == 1
    return stores[0]


def test_manifest_lists_exactly_these_stores(ladybug_manifest):
    assert sorted(ladybug_manifest["databases"]) == sorted(MANIFEST_STORES)


@pytest.mark.parametrize("rel", MANIFEST_STORES)
def test_stats_json_matches_the_manifest(ladybug_stores, ladybug_manifest, capsys, rel):
    entry = ladybug_manifest["databases"][rel]
    path = ladybug_stores / rel
    before = checksums(ladybug_stores)
    stats = _stats(capsys, path)
    assert checksums(ladybug_stores) == before  # stats only reads: no byte, no file changed
    assert set(stats) <= {"path", "kind", "engine", "storage_version", "agents",
                          "absent_tables", "layout", "written_by", "read_by"}  # fmt: skip
    if stats["engine"] == "ladybug":  # the manifest: written by ladybug 0.22.0, memexplorer's own
        assert stats["written_by"] == f"ladybug {ladybug_manifest['ladybug_version']}"
        assert stats["read_by"] == f"ladybug {ladybug_manifest['ladybug_version']}"
    assert stats["path"] == str(path)
    inventory = entry["inventory"]
    if rel.endswith("experiences.db"):
        assert (stats["engine"], stats["storage_version"], stats["kind"]) == (
            "sqlite",
            None,
            "experience",
        )
        assert stats["agents"] == {"ops-agent": {"experiences": inventory["experiences_total"]}}
        return
    assert stats["engine"] == "ladybug"
    assert stats["storage_version"] == entry["header"]["storage_version"] == 49
    assert stats["kind"] == KINDS.get(entry["kind"], "experience")
    assert sorted(stats["agents"]) == sorted(entry["agents"])
    for table, info in inventory["node_tables"].items():
        # live rows only: stored_rows (which still holds deleted ones) may be larger
        shown = {agent: counts[table] for agent, counts in stats["agents"].items()}
        assert shown == info["per_agent"], table
        assert sum(shown.values()) == info["count"] <= info["stored_rows"], table
    for table, info in inventory["rel_tables"].items():
        shown = sum(counts.get(table, 0) for counts in stats["agents"].values())
        assert shown == info["count"], table


def test_stats_same_shape_for_both_engines(reference_stores, ladybug_stores, capsys):
    rel = f"{LB_HOME}/hierarchical_memory/ops-agent"
    kuzu = _stats(capsys, reference_stores / rel / "kuzu_db")
    ladybug = _stats(capsys, ladybug_stores / rel / "ladybug_db")
    assert (kuzu["engine"], kuzu["storage_version"]) == ("kuzu", 39)
    assert (ladybug["engine"], ladybug["storage_version"]) == ("ladybug", 49)
    assert list(kuzu) == list(ladybug)
    assert kuzu["agents"] == ladybug["agents"]


def test_plain_stats_names_the_engine(ladybug_stores, capsys):
    assert main(["stats", str(ladybug_stores / "shared_two_agents")]) == 0
    out = " ".join(capsys.readouterr().out.split())  # the title wraps with the path's length
    assert "hierarchical · ladybug · storage 49" in out
    assert "triage-bot" in out and "escalation-bot" in out


def test_ladybug_db_files_are_found_by_name_and_by_header(ladybug_stores, tmp_path):
    found = {str(f.path.relative_to(ladybug_stores)): f.engine for f in find_stores(ladybug_stores)}
    assert found == {
        rel: ("sqlite" if rel.endswith(".db") else "ladybug") for rel in MANIFEST_STORES
    }
    agent_folder = ladybug_stores / LB_HOME / "hierarchical_memory" / "research-agent"
    assert resolve_hierarchical_path(agent_folder) == agent_folder / "ladybug_db"
    home = ladybug_stores / LB_HOME
    assert agent_store_path("research-agent", home=home) == agent_folder / "ladybug_db"
    assert agent_store_path("research-agent", home.parent) == agent_folder / "ladybug_db"
    # graph_db (seed 002) comes first, then the LadybugDB-era name, then the Kuzu-era one
    both = tmp_path / "agent"
    both.mkdir()
    (both / "kuzu_db").touch()
    (both / "ladybug_db").touch()
    assert resolve_hierarchical_path(both) == both / "ladybug_db"
    (both / "graph_db").touch()
    assert resolve_hierarchical_path(both) == both / "graph_db"
    empty = tmp_path / "empty"
    empty.mkdir()
    assert resolve_hierarchical_path(empty) == empty / "kuzu_db"
    assert resolve_hierarchical_path(empty, new_name="ladybug_db") == empty / "ladybug_db"


def test_query_finds_a_ladybug_agent_by_name(ladybug_stores, capsys, expected_retrieval):
    """Found by name in a LadybugDB home, each reference query returns the facts the
    reference library retrieved (the store replays the Kuzu-era one with its ids)."""
    home = ladybug_stores / LB_HOME
    before = checksums(home)
    for case in expected_retrieval["agents"]["research-agent"]:
        command = ["query", "research-agent", case["query"], "--home", str(home), "--json"]
        assert main(command) == 0
        answer = json.loads(capsys.readouterr().out)
        assert answer["agent"] == "research-agent"
        assert answer["store"] == str(home / "hierarchical_memory/research-agent/ladybug_db")
        found = {node["node_id"] for node in answer["nodes"]}
        assert set(case["node_ids"]) <= found, case["query"]
        edges = {(e["source_id"], e["target_id"], e["relationship"]) for e in answer["edges"]}
        assert {tuple(edge) for edge in case["edges"]} <= edges, case["query"]
    assert checksums(home) == before


def test_base64_json_columns_read_as_json():
    encoded = base64.b64encode(json.dumps({"category": "semantic"}).encode()).decode()
    assert loads_json(encoded, {}) == {"category": "semantic"}
    assert loads_json("W10=", []) == []
    assert loads_json('["a"]', []) == ["a"]
    assert loads_json("not json, not base64!", {}) == {}
    assert loads_json(base64.b64encode(b"\xff\xfe").decode(), []) == []  # not UTF-8 inside
    assert loads_json(base64.b64encode(b"[1]").decode(), {}) == {}  # wrong type: the default


def _graph(path: Path, drop: tuple[str, ...] = ()) -> dict[str, list[str]]:
    data = json.loads(path.read_text())
    return {
        key: sorted(
            json.dumps({k: v for k, v in item.items() if k not in drop}, sort_keys=True)
            for item in data[key]
        )
        for key in GRAPH_KEYS
    }


def test_ladybug_export_equals_the_kuzu_era_export(reference_stores, ladybug_stores, tmp_path):
    """Same memory_ids, tags, metadata (base64 in the LadybugDB file) and edges; only
    created_at differs, as the LadybugDB-era stores were replayed later."""
    rel = f"{LB_HOME}/hierarchical_memory/ops-agent"
    kuzu, ladybug = tmp_path / "kuzu.json", tmp_path / "ladybug.json"
    assert (
        main(["export", "ops-agent", str(kuzu), "--storage-path", str(reference_stores / rel)]) == 0
    )
    assert (
        main(["export", "ops-agent", str(ladybug), "--storage-path", str(ladybug_stores / rel)])
        == 0
    )
    drop = ("created_at",)
    assert _graph(ladybug, drop) == _graph(kuzu, drop)
    assert any(json.loads(n)["tags"] for n in _graph(ladybug)["semantic_nodes"])


@pytest.mark.parametrize(
    ("origin", "agent", "engine"),
    [
        ("ladybug", "research-agent", "kuzu"),
        ("kuzu", "support-bot", "ladybug"),
        ("ladybug", "triage-bot", "kuzu"),
    ],
)
def test_export_import_across_engines_keeps_every_node_and_edge(
    reference_stores, ladybug_stores, tmp_path, capsys, origin, agent, engine
):
    root = ladybug_stores if origin == "ladybug" else reference_stores
    store = (
        root / "shared_two_agents"
        if agent == "triage-bot"
        else root / LB_HOME / "hierarchical_memory" / agent
    )
    before = checksums(store)
    first, second = tmp_path / "first.json", tmp_path / "second.json"
    assert main(["export", agent, str(first), "--storage-path", str(store)]) == 0
    capsys.readouterr()
    folder = tmp_path / "new" / agent
    folder.mkdir(parents=True)
    args = ["import", agent, str(first), "--storage-path", str(folder), "--engine", engine]
    assert main([*args, "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    new_store = folder / f"{engine}_db"
    assert result["store"] == str(new_store)
    assert sniff(new_store).engine == engine
    assert main(["export", agent, str(second), "--storage-path", str(folder)]) == 0
    assert _graph(first) == _graph(second)
    assert checksums(store) == before


def test_import_keeps_an_existing_stores_engine(ladybug_stores, tmp_path, capsys):
    folder = tmp_path / "support-bot"
    shutil.copytree(ladybug_stores / LB_HOME / "hierarchical_memory" / "support-bot", folder)
    export = tmp_path / "support.json"
    assert main(["export", "support-bot", str(export), "--storage-path", str(folder)]) == 0
    # replacing the only agent of a LadybugDB store writes a LadybugDB file again
    assert main(["import", "support-bot", str(export), "--storage-path", str(folder)]) == 0
    assert sniff(folder / "ladybug_db").engine == "ladybug"
    assert not (folder / "kuzu_db").exists()
    capsys.readouterr()
    before = checksums(folder)
    args = ["import", "support-bot", str(export), "--storage-path", str(folder)]
    assert main([*args, "--engine", "kuzu"]) == 2
    err = capsys.readouterr().err
    assert "is a ladybug store; an import cannot change its engine to kuzu" in err
    assert "memexplorer migrate" in err
    assert main([*args, "--engine", "kuzu", "--format", "raw-db"]) == 2
    assert "--engine does not apply to raw-db imports" in capsys.readouterr().err
    assert checksums(folder) == before
