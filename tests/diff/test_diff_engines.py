"""diff and grep on the other writers' stores: LadybugDB (the library's later engine)
and amplihack-rs's SQLite store, each against the export its own writer made; reading
never changes a byte of either."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sqlite3
from importlib.util import find_spec
from pathlib import Path

import pytest

from memexplorer.cli.main import main
from memexplorer.operator.clean import clean_store, clean_target
from memexplorer.operator.clean_selection import Selection
from memexplorer.operator.diff_report import diff_memory

#: CI installs the extra: there a missing ladybug fails the test instead of skipping it.
needs_ladybug = pytest.mark.skipif(
    find_spec("ladybug") is None and not os.environ.get("CI"),
    reason="needs the ladybug extra: pip install 'memexplorer[ladybug]'",
)


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.parametrize("agent", ["ops-agent", "research-agent", "support-bot"])
def test_rust_export_and_its_sqlite_store_agree(rust_sqlite_home: Path, agent: str) -> None:
    store = rust_sqlite_home / f"home/.amplihack/hierarchical_memory/{agent}.db"
    before = _digest(store)
    report = diff_memory(rust_sqlite_home / f"rust_exports/{agent}.json", store)
    assert (report.a.agent, report.b.agent, report.b.kind) == (agent, agent, "store")
    assert report.diff.empty
    assert _digest(store) == before


def test_rust_store_against_an_edited_rust_export(rust_sqlite_home: Path, tmp_path: Path) -> None:
    """One fact dropped from the Rust export and one changed: the store (B) has one
    fact the file lacks (added) and one whose content differs (changed)."""
    data = json.loads((rust_sqlite_home / "rust_exports/ops-agent.json").read_text())
    dropped = data["semantic_nodes"].pop(0)
    changed = data["semantic_nodes"][0]
    stored_content = changed["content"]
    changed["content"] = "an older wording"
    gone = dropped["memory_id"]
    ends = {(e["source_id"], e["target_id"]) for key in ("similar_to_edges", "derives_from_edges")
            for e in data[key] if gone in (e["source_id"], e["target_id"])}  # fmt: skip
    for key in ("similar_to_edges", "derives_from_edges", "supersedes_edges",
                "transitioned_to_edges"):  # fmt: skip
        data[key] = [e for e in data[key]
                     if dropped["memory_id"] not in (e["source_id"], e["target_id"])]  # fmt: skip
    edited = tmp_path / "edited.json"
    edited.write_text(json.dumps(data))
    store = rust_sqlite_home / "home/.amplihack/hierarchical_memory/ops-agent.db"
    facts = diff_memory(edited, store).diff.table("SemanticMemory")
    assert [n["memory_id"] for n in facts.added] == [dropped["memory_id"]]
    [change] = facts.changed
    assert change.fields == {"content": ("an older wording", stored_content)}
    report = diff_memory(edited, store)
    added = {(e["source_id"], e["target_id"]) for name in ("SIMILAR_TO", "DERIVES_FROM")
             for e in report.diff.table(name).added}  # fmt: skip
    assert added == ends


def test_grep_in_rust_sqlite_stores(rust_sqlite_home: Path, capsys) -> None:
    home = rust_sqlite_home / "home/.amplihack"
    expected = {}
    for db in sorted((home / "hierarchical_memory").glob("*.db")):
        connection = sqlite3.connect(db)
        rows = connection.execute(
            "SELECT count(*) FROM semantic_memories WHERE instr(lower(content), 'the') > 0 "
            "OR instr(lower(concept), 'the') > 0"
        ).fetchone()
        connection.close()
        if rows[0]:
            expected[db.name] = rows[0]
    assert main(["grep", "THE", str(home), "--json"]) == 0
    groups = json.loads(capsys.readouterr().out)["groups"]
    found = {Path(g["store"]).name: g["total"] for g in groups if g["table"] == "semantic_memories"}
    assert all(g["item"] == "fact" for g in groups if g["table"] == "semantic_memories")
    for name, count in expected.items():
        assert found[name] >= count  # content and concept at least; other text columns too


@needs_ladybug
def test_library_export_and_its_ladybug_store_agree(ladybug_stores: Path, tmp_path: Path) -> None:
    copy = tmp_path / "hierarchical_memory" / "ops-agent" / "ladybug_db"
    copy.parent.mkdir(parents=True)
    shutil.copy2(ladybug_stores / "home/.amplihack/hierarchical_memory/ops-agent/ladybug_db", copy)
    before = _digest(copy)
    report = diff_memory(ladybug_stores / "exports/ops-agent.export_to_json.json", copy)
    assert report.b.agent == "ops-agent"
    assert report.diff.empty
    assert _digest(copy) == before


def test_rust_store_against_its_clean_backup(rust_sqlite_home: Path) -> None:
    """A clean of amplihack-rs's SQLite store saves rows, not the file: the backup side
    is the store with them put back (in memory), so exactly the cleaned facts (the
    Rust export says which) read as removed, and neither file changes."""
    data = json.loads((rust_sqlite_home / "rust_exports/ops-agent.json").read_text())
    concept = data["semantic_nodes"][0]["concept"]
    gone = sorted(n["memory_id"] for n in data["semantic_nodes"] if n["concept"] == concept)
    home = rust_sqlite_home / "home/.amplihack"
    store = home / "hierarchical_memory/ops-agent.db"
    result = clean_store(clean_target(store), Selection(concept, agent="ops-agent"), home=home)
    before = _digest(store)
    report = diff_memory(result.backup.path, store)
    facts = report.diff.table("SemanticMemory")
    assert sorted(n["memory_id"] for n in facts.removed) == gone
    assert facts.added == [] and facts.changed == []
    assert _digest(store) == before


@needs_ladybug
def test_grep_in_ladybug_stores(ladybug_stores: Path, tmp_path: Path, capsys) -> None:
    """grep reads LadybugDB stores (through the ladybug worker) as it reads Kuzu ones:
    each agent's facts containing a word, as the library's own export lists them."""
    home = tmp_path / ".amplihack"
    shutil.copytree(ladybug_stores / "home/.amplihack", home)
    library = json.loads((ladybug_stores / "exports/ops-agent.export_to_json.json").read_text())
    expected = sorted(n["memory_id"] for n in library["semantic_nodes"]
                      if "replicas" in (n["content"] + n["concept"]).lower())  # fmt: skip
    assert expected
    assert main(["grep", "replicas", str(home), "--json", "--all"]) == 0
    groups = json.loads(capsys.readouterr().out)["groups"]
    [facts] = [g for g in groups if g["agent"] == "ops-agent" and g["table"] == "SemanticMemory"]
    assert sorted(h["key"] for h in facts["hits"]) == expected


def test_snapshot_of_a_rust_sqlite_agent(rust_sqlite_home: Path, capsys) -> None:
    """An agent with only amplihack-rs's <agent>.db: snapshot and diff find it by name,
    and the snapshot holds what the Rust export holds."""
    home = rust_sqlite_home / "home/.amplihack"
    assert main(["snapshot", "support-bot", "--home", str(home), "--json"]) == 0
    path = Path(json.loads(capsys.readouterr().out)["path"])
    assert diff_memory(rust_sqlite_home / "rust_exports/support-bot.json", path).diff.empty
    assert main(["diff", str(path), "support-bot", "--home", str(home)]) == 0
    out = capsys.readouterr().out
    assert f"B: store {home / 'hierarchical_memory/support-bot.db'} · agent support-bot" in out
    assert "No differences." in out
