"""Export and import on amplihack-rs's SQLite hierarchical store, through the CLI and
the write gate. Expected values: the Rust export and rows the fixture script wrote
with the Rust code's statements (rust_reference.py reads stores the Rust way)."""

from __future__ import annotations

import json
import sqlite3

import pytest

from memexplorer.cli.main import main
from memexplorer.operator.backup_records import list_backups
from memexplorer.operator.backups import restore_backup
from memexplorer.operator.transfer import import_agent_store
from memexplorer.storage.exceptions import WritesDisabledError

from .rust_reference import FOLDER, canonical, raw_rows, rust_export

AGENTS = ("ops-agent", "research-agent", "support-bot")


@pytest.fixture
def sqlite_home(rust_sqlite_home, monkeypatch):
    monkeypatch.setenv("HOME", str(rust_sqlite_home / "home"))
    monkeypatch.setenv("AMPLIHACK_MEMORY_BACKEND", "sqlite")
    return rust_sqlite_home


@pytest.mark.parametrize("agent", AGENTS)
def test_export_is_what_the_rust_cli_exports(sqlite_home, tmp_path, agent, capsys):
    out = tmp_path / f"{agent}.json"
    assert main(["export", agent, str(out)]) == 0, capsys.readouterr().err
    ours = json.loads(out.read_text())
    expected = json.loads((sqlite_home / f"rust_exports/{agent}.json").read_text())
    assert ours["format_version"] == "1.1" and ours["exported_at"].isdigit()
    assert ours["statistics"] == expected["statistics"]
    assert canonical(ours) == canonical(expected)
    assert oct(out.stat().st_mode & 0o777) == "0o600"


def test_replace_import_writes_the_rust_rows_byte_for_byte(sqlite_home, tmp_path, capsys):
    original = tmp_path / "original.db"
    db = sqlite_home / FOLDER / "ops-agent.db"
    original.write_bytes(db.read_bytes())
    source = sqlite_home / "rust_exports/ops-agent.json"
    assert main(["import", "ops-agent", str(source)]) == 0, capsys.readouterr().err
    for table in ("semantic_memories", "episodic_memories"):
        assert raw_rows(db, table) == raw_rows(original, table)
    for table in ("similar_to_edges", "derives_from_edges", "supersedes_edges",
                  "transitioned_to_edges"):  # fmt: skip
        assert raw_rows(db, table, skip=("id",)) == raw_rows(original, table, skip=("id",))
    assert oct(db.stat().st_mode & 0o777) == "0o600"
    assert oct(db.parent.stat().st_mode & 0o777) == "0o700"


def test_import_into_a_new_agent_creates_its_file(sqlite_home, capsys):
    source = sqlite_home / "rust_exports/research-agent.json"
    assert main(["import", "copy-agent", str(source)]) == 0, capsys.readouterr().err
    db = sqlite_home / FOLDER / "copy-agent.db"
    assert oct(db.stat().st_mode & 0o777) == "0o600"
    assert canonical(rust_export(db, "copy-agent")) == canonical(json.loads(source.read_text()))
    with sqlite3.connect(db) as conn:
        assert {r[0] for r in conn.execute("SELECT agent_id FROM semantic_memories")} == {
            "copy-agent"
        }


def test_merge_skips_known_ids_and_inserts_every_edge_again(sqlite_home, capsys):
    db = sqlite_home / FOLDER / "ops-agent.db"
    before = {t: len(raw_rows(db, t)) for t in ("semantic_memories", "similar_to_edges")}
    late = sqlite_home / "imports/ops-late.json"  # merged once already by the fixture
    assert main(["import", "ops-agent", str(late), "--merge"]) == 0, capsys.readouterr().err
    after = {t: len(raw_rows(db, t)) for t in ("semantic_memories", "similar_to_edges")}
    assert after == {"semantic_memories": before["semantic_memories"],
                     "similar_to_edges": before["similar_to_edges"] + 2}  # fmt: skip


def test_replace_keeps_a_backup_that_restore_puts_back(sqlite_home, tmp_path):
    db = sqlite_home / FOLDER / "support-bot.db"
    original = {t: raw_rows(db, t) for t in ("semantic_memories", "supersedes_edges")}
    other = sqlite_home / "rust_exports/research-agent.json"
    result = import_agent_store("support-bot", other)
    assert result.store == db and result.store_backup is not None
    assert raw_rows(db, "semantic_memories") != original["semantic_memories"]
    restore_backup(result.store_backup)
    assert {t: raw_rows(db, t) for t in original} == original


def test_refused_writes_change_nothing(sqlite_home, tmp_path, monkeypatch):
    db = sqlite_home / FOLDER / "ops-agent.db"
    before = db.read_bytes()
    bad = tmp_path / "bad.json"
    bad.write_text(
        json.dumps(
            {
                "format_version": "1.1",
                "semantic_nodes": [{"memory_id": "x", "confidence": 0.5}],
                "episodic_nodes": [],
                "similar_to_edges": [{"source_id": "x", "target_id": "nowhere", "weight": 0.1}],
            }
        )
    )
    assert main(["import", "ops-agent", str(bad)]) == 2
    monkeypatch.setenv("MEMEXPLORER_READ_ONLY", "1")
    with pytest.raises(WritesDisabledError):
        import_agent_store("ops-agent", sqlite_home / "rust_exports/ops-agent.json")
    assert db.read_bytes() == before


def test_raw_db_out_and_back_in_keeps_a_bak_and_a_backup(sqlite_home, tmp_path, capsys):
    db = sqlite_home / FOLDER / "research-agent.db"
    rows = {t: raw_rows(db, t) for t in ("semantic_memories", "transitioned_to_edges")}
    copy = tmp_path / "research.db"
    assert main(["export", "research-agent", str(copy), "--format", "raw-db"]) == 0
    assert oct(copy.stat().st_mode & 0o777) == "0o600"
    assert main(["import", "research-agent", str(copy), "--format", "raw-db"]) == 0, (
        capsys.readouterr().err
    )
    assert {t: raw_rows(db, t) for t in rows} == rows
    bak = db.with_name("research-agent.db.bak")
    assert {t: raw_rows(bak, t) for t in rows} == rows
    assert len(list_backups(sqlite_home / "home/.amplihack")) == 1
    other = sqlite_home / "rust_exports/ops-agent.json"
    assert main(["import", "research-agent", str(other), "--format", "raw-db"]) == 2
    assert "amplihack-rs SQLite store" in capsys.readouterr().err


def test_engine_sqlite_names_the_rust_store_without_the_variable(
    rust_sqlite_home, tmp_path, capsys
):
    home = tmp_path / "fresh" / ".amplihack"
    source = rust_sqlite_home / "rust_exports/support-bot.json"
    assert main(["import", "support-bot", str(source), "--engine", "sqlite",
                 "--home", str(home)]) == 0, capsys.readouterr().err  # fmt: skip
    db = home / "hierarchical_memory" / "support-bot.db"
    assert canonical(rust_export(db, "support-bot")) == canonical(json.loads(source.read_text()))
    assert oct(db.parent.stat().st_mode & 0o777) == "0o700"


def test_tags_and_metadata_the_rust_loader_cannot_parse(tmp_path, monkeypatch, capsys):
    """loaders.rs reads tags that are not an array of strings as [] and metadata that
    is empty or not JSON as {}; the export does the same (rows written with the Rust
    code's own insert statement, values bound raw)."""
    from .rust_reference import rust

    db = tmp_path / "hierarchical_memory" / "odd-agent.db"
    conn = rust.open_conn(db)
    rows = [("o-1", "[1, 2]", ""), ("o-2", "not json", "{broken"), ("o-3", '["a"]', "7")]
    for memory_id, tags, metadata in rows:
        conn.execute(rust.INSERT_SEMANTIC, (memory_id, "odd-agent", "c", "text", 0.5, "",
                                            tags, metadata, memory_id, ""))  # fmt: skip
    conn.close()
    monkeypatch.setenv("AMPLIHACK_MEMORY_BACKEND", "sqlite")
    out = tmp_path / "odd.json"
    assert main(["export", "odd-agent", str(out), "--storage-path", str(db.parent)]) == 0
    nodes = {n["memory_id"]: n for n in json.loads(out.read_text())["semantic_nodes"]}
    expected = {n["memory_id"]: n for n in rust_export(db, "odd-agent")["semantic_nodes"]}
    assert nodes == expected
    assert [(nodes[i]["tags"], nodes[i]["metadata"]) for i in ("o-1", "o-2", "o-3")] == [
        ([], {}), ([], {}), (["a"], 7)
    ]  # fmt: skip
