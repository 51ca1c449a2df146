"""`memexplorer export` and `import` on the reference stores, and every way they refuse."""

from __future__ import annotations

import json
import os
import shutil
import stat
from pathlib import Path

import pytest
from store_helpers import checksums, held_by_another_process

from memexplorer.cli.main import main
from memexplorer.operator.transfer import export_agent_store, import_agent_store
from memexplorer.storage.exceptions import ImportDataError, InvalidInputError

HOME = "home/.amplihack"
AGENTS = {
    # agent -> its store, relative to the unpacked fixtures
    "ops-agent": f"{HOME}/hierarchical_memory/ops-agent",
    "research-agent": f"{HOME}/hierarchical_memory/research-agent",
    "support-bot": f"{HOME}/hierarchical_memory/support-bot",
    "triage-bot": "shared_two_agents/kuzu_db",
    "escalation-bot": "shared_two_agents/kuzu_db",
}
GRAPH_KEYS = (
    "semantic_nodes",
    "episodic_nodes",
    "similar_to_edges",
    "derives_from_edges",
    "supersedes_edges",
    "transitioned_to_edges",
)


def _graph(path: Path) -> dict[str, list[str]]:
    data = json.loads(path.read_text())
    return {key: sorted(json.dumps(i, sort_keys=True) for i in data[key]) for key in GRAPH_KEYS}


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.mark.parametrize("agent", AGENTS)
def test_every_reference_agent_round_trips_through_the_cli(reference_stores, tmp_path, agent):
    store = reference_stores / AGENTS[agent]
    before = checksums(store)
    first, second = tmp_path / "out" / "first.json", tmp_path / "out" / "second.json"
    assert main(["export", agent, str(first), "--storage-path", str(store)]) == 0
    assert checksums(store) == before  # export only reads
    fresh = tmp_path / "fresh" / agent
    assert main(["import", agent, str(first), "--storage-path", str(fresh)]) == 0
    assert main(["export", agent, str(second), "--storage-path", str(fresh)]) == 0
    assert _graph(first) == _graph(second)
    data = json.loads(first.read_text())
    assert data["format_version"] == "1.1" and data["agent_name"] == agent
    assert list(data) == [
        "agent_name", "exported_at", "format_version", *GRAPH_KEYS[:5],
        "transitioned_to_edges", "statistics",
    ]  # fmt: skip
    assert set(data["statistics"]) == {
        "semantic_node_count", "episodic_node_count", "similar_to_edge_count",
        "derives_from_edge_count", "supersedes_edge_count", "transitioned_to_edge_count",
    }  # fmt: skip


def test_export_json_output_and_permissions(reference_stores, tmp_path, capsys):
    out = tmp_path / "new" / "folder" / "ops.json"
    code = main(["export", "ops-agent", str(out), "--home", str(reference_stores / HOME), "--json"])
    assert code == 0
    result = json.loads(capsys.readouterr().out)
    assert result["counts"]["SemanticMemory"] == 84
    assert result["counts"]["SUPERSEDES"] == 21
    assert result["output"] == str(out) and result["size_bytes"] == out.stat().st_size
    assert _mode(out) == 0o600
    assert _mode(out.parent) == 0o700 and _mode(out.parent.parent) == 0o700
    assert not out.with_name("ops.json.tmp").exists()


def test_import_uses_the_callers_agent_name_and_merge_counts(reference_stores, tmp_path, capsys):
    export = reference_stores / "exports" / "ops-agent.export_to_json.json"  # format 1.0
    store = tmp_path / "agents" / "renamed"
    assert main(["import", "renamed", str(export), "--storage-path", str(store)]) == 0
    assert _mode(store) == 0o600 and _mode(store.parent) == 0o700
    capsys.readouterr()
    assert main(["import", "renamed", str(export), "--storage-path", str(store), "--merge",
                 "--json"]) == 0  # fmt: skip
    merged = json.loads(capsys.readouterr().out)
    assert merged["merged"] is True
    assert merged["counts"]["SemanticMemory"] == 0
    assert merged["skipped"] == 84 + 22 + 164 + 27 + 21
    out = tmp_path / "again.json"
    assert main(["export", "renamed", str(out), "--storage-path", str(store)]) == 0
    assert json.loads(out.read_text())["agent_name"] == "renamed"
    assert (
        main(["export", "ops-agent", str(tmp_path / "x.json"), "--storage-path", str(store)]) == 2
    )  # fmt: skip  (the file's agent name was never used)


def test_import_replaces_an_agent_and_leaves_its_neighbour(reference_stores, tmp_path):
    shared = reference_stores / "shared_two_agents" / "kuzu_db"
    triage = tmp_path / "triage.json"
    escalation_before = tmp_path / "escalation-before.json"
    escalation_after = tmp_path / "escalation-after.json"
    export_agent_store("triage-bot", triage, storage_path=shared)
    export_agent_store("escalation-bot", escalation_before, storage_path=shared)
    data = json.loads(triage.read_text())
    data["semantic_nodes"] = data["semantic_nodes"][:3]
    keep = {n["memory_id"] for n in data["semantic_nodes"]}
    for key in ("similar_to_edges", "supersedes_edges", "transitioned_to_edges"):
        data[key] = [e for e in data[key] if e["source_id"] in keep and e["target_id"] in keep]
    data["derives_from_edges"] = [e for e in data["derives_from_edges"] if e["source_id"] in keep]
    smaller = tmp_path / "smaller.json"
    smaller.write_text(json.dumps(data))
    result = import_agent_store("triage-bot", smaller, storage_path=shared)
    assert result.counts["SemanticMemory"] == 3
    export_agent_store("escalation-bot", escalation_after, storage_path=shared)
    assert _graph(escalation_before) == _graph(escalation_after)


def test_raw_db_export_and_import_keep_a_bak(reference_stores, tmp_path, capsys):
    home = reference_stores / HOME
    copy = tmp_path / "ops.kuzu"
    assert main(["export", "ops-agent", str(copy), "--format", "kuzu", "--home", str(home)]) == 0
    store = home / "hierarchical_memory" / "ops-agent" / "kuzu_db"
    assert checksums(copy)["ops.kuzu"] == checksums(store)["kuzu_db"]
    assert _mode(copy) == 0o600
    target = tmp_path / "target"
    target.mkdir()
    research = home / "hierarchical_memory" / "research-agent" / "kuzu_db"
    shutil.copy(research, target / "kuzu_db")
    (target / "kuzu_db.bak").write_text("an older backup, replaced")
    research_sum = checksums(target / "kuzu_db")["kuzu_db"]
    capsys.readouterr()
    code = main(["import", "ops-agent", str(copy), "--format", "raw-db",
                 "--storage-path", str(target), "--json"])  # fmt: skip
    assert code == 0
    result = json.loads(capsys.readouterr().out)
    assert result["backup"] == str(target / "kuzu_db.bak")
    assert checksums(target / "kuzu_db.bak")["kuzu_db.bak"] == research_sum
    assert checksums(target / "kuzu_db")["kuzu_db"] == checksums(copy)["ops.kuzu"]
    assert result["counts"]["SemanticMemory"] == 84


def test_raw_db_refuses_merge_symlinks_and_itself(reference_stores, tmp_path, capsys):
    home = reference_stores / HOME
    store = home / "hierarchical_memory" / "ops-agent" / "kuzu_db"
    link = tmp_path / "link.kuzu"
    link.symlink_to(store)
    for argv, words in (
        (["import", "ops-agent", str(store), "--format", "raw-db", "--merge"], "--merge"),
        (["import", "ops-agent", str(link), "--format", "raw-db"], "symbolic link"),
        (["import", "ops-agent", str(store), "--format", "raw-db", "--home", str(home)],
         "store itself"),
    ):  # fmt: skip
        before = checksums(store)
        assert main(argv) == 2
        assert words in capsys.readouterr().err
        assert checksums(store) == before
    linked_store = tmp_path / "agent"
    linked_store.mkdir()
    (linked_store / "kuzu_db").symlink_to(store)
    assert main(["export", "ops-agent", str(tmp_path / "o.kuzu"), "--format", "raw-db",
                 "--storage-path", str(linked_store)]) == 2  # fmt: skip
    assert "symbolic link" in capsys.readouterr().err


def test_raw_copy_of_a_folder_store_skips_links_inside(tmp_path):
    old = tmp_path / "old-agent" / "kuzu_db"
    old.mkdir(parents=True)
    for name in ("catalog.kz", "data.kz", "metadata.kz"):
        (old / name).write_bytes(b"old layout " + name.encode())
    (old / "escape").symlink_to("/etc/passwd")
    result = export_agent_store(
        "old-agent", tmp_path / "copy", format="raw-db", storage_path=tmp_path / "old-agent"
    )
    assert sorted(p.name for p in (tmp_path / "copy").iterdir()) == [
        "catalog.kz", "data.kz", "metadata.kz"
    ]  # fmt: skip
    assert any("symbolic link" in w for w in result.warnings)
    assert any("folder-layout" in w for w in result.warnings)


@pytest.mark.parametrize(
    ("content", "words"),
    [
        ("{not json", "not valid JSON"),
        ('{"semantic_nodes": [', "not valid JSON"),
        ("[1, 2]", "JSON list"),
        ('{"agent_name": "x", "semantic_nodes": "nope"}', "semantic_nodes"),
        (
            json.dumps(
                {
                    "semantic_nodes": [],
                    "episodic_nodes": [],
                    "similar_to_edges": [
                        {"source_id": "a", "target_id": "b", "weight": 0.5, "metadata": {}}
                    ],
                }
            ),
            "names no SemanticMemory node",
        ),
    ],
)
def test_bad_json_is_refused_and_the_store_is_untouched(
    reference_stores, tmp_path, capsys, content, words
):
    store = reference_stores / HOME / "hierarchical_memory" / "ops-agent" / "kuzu_db"
    before = checksums(store)
    bad = tmp_path / "bad.json"
    bad.write_text(content)
    assert main(["import", "ops-agent", str(bad), "--storage-path", str(store)]) == 2
    assert words in capsys.readouterr().err
    assert checksums(store) == before


def test_duplicate_ids_are_refused(reference_stores, tmp_path):
    data = json.loads((reference_stores / "exports" / "ops-agent.export_to_json.json").read_text())
    data["semantic_nodes"].append(dict(data["semantic_nodes"][0]))
    bad = tmp_path / "dup.json"
    bad.write_text(json.dumps(data))
    with pytest.raises(ImportDataError, match="duplicate"):
        import_agent_store("ops-agent", bad, storage_path=tmp_path / "fresh")
    assert not (tmp_path / "fresh").exists()


def test_a_huge_file_is_streamed_and_refused_at_its_first_wrong_byte(tmp_path, capsys):
    # The old 500 MB cap is gone: import reads records one at a time, so it meets
    # the first NUL byte of this sparse file without reading the other 500 MB.
    huge = tmp_path / "huge.json"
    with open(huge, "wb") as handle:  # sparse: no disk used
        handle.truncate(500 * 1024 * 1024 + 1)
    assert main(["import", "someone", str(huge), "--storage-path", str(tmp_path / "s")]) == 2
    assert "not valid JSON: Expecting value in the file (character 0)" in capsys.readouterr().err
    assert not (tmp_path / "s").exists()


@pytest.mark.parametrize("agent", ["", "a/b", "a\\b", "..", "x/../y"])
def test_bad_agent_names(tmp_path, capsys, agent):
    assert main(["export", agent, str(tmp_path / "o.json"), "--home", str(tmp_path)]) == 2
    assert "error" in capsys.readouterr().err
    assert not (tmp_path / "o.json").exists()


def test_unknown_format_and_missing_things(reference_stores, tmp_path, capsys):
    with pytest.raises(InvalidInputError, match="Unknown transfer format"):
        export_agent_store("ops-agent", tmp_path / "o", format="KUZU")
    assert main(["export", "nobody", str(tmp_path / "o.json"), "--home",
                 str(reference_stores / HOME)]) == 2  # fmt: skip
    assert "No hierarchical store" in capsys.readouterr().err
    assert main(["import", "ops-agent", str(tmp_path / "missing.json"), "--home",
                 str(tmp_path)]) == 2  # fmt: skip
    assert main(["export", "ops-agent", str(tmp_path), "--home",
                 str(reference_stores / HOME)]) == 2  # fmt: skip
    assert "is a folder" in capsys.readouterr().err


def test_no_home(monkeypatch, tmp_path, capsys):
    monkeypatch.delenv("HOME", raising=False)
    assert main(["export", "ops-agent", str(tmp_path / "o.json")]) == 2
    assert "HOME is not set" in capsys.readouterr().err


def test_a_failed_export_leaves_an_older_file_alone(reference_stores, tmp_path):
    out = tmp_path / "keep.json"
    out.write_text("previous export")
    with pytest.raises(InvalidInputError):
        export_agent_store(
            "nobody-here",
            out,
            storage_path=reference_stores / HOME / "hierarchical_memory" / "ops-agent",
        )
    assert out.read_text() == "previous export"


def test_locked_store(reference_stores, tmp_path, capsys):
    store = reference_stores / HOME / "hierarchical_memory" / "ops-agent" / "kuzu_db"
    export = reference_stores / "exports" / "ops-agent.export_to_json.json"
    with held_by_another_process(store, "rw"):
        before = checksums(store)
        assert main(["import", "ops-agent", str(export), "--storage-path", str(store)]) == 3
        assert main(["export", "ops-agent", str(tmp_path / "o.json"), "--storage-path",
                     str(store)]) == 3  # fmt: skip
        assert "Another process" in capsys.readouterr().err
        assert checksums(store) == before
    assert not os.path.exists(tmp_path / "o.json")


@pytest.mark.parametrize(
    ("value", "code", "words"),
    [
        ("graph-db", 0, ""),
        ("kuzu", 0, ""),
        ("KUZU", 0, "casing is exact"),
        ("postgres", 0, "using the graph-db store"),
        ("sqlite", 2, "hierarchical_memory/ops-agent.db"),
    ],
)
def test_backend_variable_governs_transfers(reference_stores, tmp_path, capsys, monkeypatch,
                                            value, code, words):  # fmt: skip
    monkeypatch.setenv("AMPLIHACK_MEMORY_BACKEND", value)
    out = tmp_path / "ops.json"
    home = str(reference_stores / HOME)
    assert main(["export", "ops-agent", str(out), "--home", home]) == code
    err = capsys.readouterr().err
    assert words in err
    assert out.exists() == (code == 0)
    if code == 0:
        store = tmp_path / "new"
        assert main(["import", "ops-agent", str(out), "--storage-path", str(store)]) == 0
        assert words in capsys.readouterr().err


def test_export_refuses_an_existing_file_unless_force(reference_stores, tmp_path):
    """`export` silently overwrote an existing file; now exit 2 and the file is kept."""
    import subprocess
    import sys

    home = reference_stores / "home" / ".amplihack"
    out = tmp_path / "ops.json"
    out.write_text("yesterday's export")

    def export(*extra: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-m", "memexplorer", "export", "ops-agent", str(out),
             "--storage-path", str(home / "hierarchical_memory" / "ops-agent"), *extra],
            capture_output=True, text=True, timeout=120,
        )  # fmt: skip

    refused = export()
    assert refused.returncode == 2, refused.stderr
    assert "already exists" in refused.stderr and "--force" in refused.stderr
    assert "Traceback" not in refused.stderr
    assert out.read_text() == "yesterday's export"
    forced = export("--force")
    assert forced.returncode == 0, forced.stderr
    assert json.loads(out.read_text())["agent_name"] == "ops-agent"


@pytest.mark.parametrize("merge", [False, True])
def test_ids_another_agent_owns_are_refused_and_nothing_is_written(reference_stores, tmp_path,
                                                                     merge):  # fmt: skip
    shared = reference_stores / "shared_two_agents" / "kuzu_db"
    triage, escalation = tmp_path / "triage.json", tmp_path / "escalation.json"
    export_agent_store("triage-bot", triage, storage_path=shared)
    export_agent_store("escalation-bot", escalation, storage_path=shared)
    data = json.loads(triage.read_text())
    theirs = json.loads(escalation.read_text())["semantic_nodes"][0]
    data["semantic_nodes"].append(theirs)  # escalation-bot's fact, in triage-bot's file
    hostile = tmp_path / "hostile.json"
    hostile.write_text(json.dumps(data))
    before = checksums(shared.parent)
    with pytest.raises(ImportDataError, match="1 id\\(s\\) in the file belong to another agent"):
        import_agent_store("triage-bot", hostile, storage_path=shared, merge=merge)
    assert checksums(shared.parent) == before
