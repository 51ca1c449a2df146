"""`memexplorer duplicates` and `memexplorer merge` on the planted store: the groups
(by hand, planted.py), the merge's JSON, confirmation, and undo with `restore`."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from memexplorer.cli.main import main

from .planted import AGENT, build_graph_store, dump


@pytest.fixture
def home(tmp_path: Path) -> Path:
    home = tmp_path / "home" / ".amplihack"
    build_graph_store(home / "hierarchical_memory" / AGENT / "kuzu_db")
    return home


def _json(capsys: pytest.CaptureFixture[str], argv: list[str]) -> dict:
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)


def test_duplicates_json_lists_the_planted_groups(home: Path, capsys):
    # The default threshold, 0.85, leaves out b1-b2 (0.8: no tags to share).
    report = _json(capsys, ["duplicates", AGENT, "--home", str(home), "--json"])
    assert [[f["memory_id"] for f in g["facts"]] for g in report["groups"]] == [
        ["a3", "a2", "a1"]]  # fmt: skip
    assert (report["threshold"], report["duplicates"], report["facts"]) == (0.85, 2, 7)
    high = _json(capsys, ["duplicates", AGENT, "--home", str(home), "--threshold", "0.95",
                          "--json"])  # fmt: skip
    assert [[f["memory_id"] for f in g["facts"]] for g in high["groups"]] == [["a2", "a1"]]


def test_text_output_names_the_kept_fact_and_scores(home: Path, capsys):
    assert main(["duplicates", AGENT, "--home", str(home), "--threshold", "0.7"]) == 0
    out = capsys.readouterr().out
    assert "2 groups of 3 duplicates at similarity >= 0.7 among 7 facts" in out
    assert " keep  a3 " in out and " 0.90  a1 " in out


def test_merge_then_restore_gives_the_store_back(home: Path, capsys):
    store = home / "hierarchical_memory" / AGENT / "kuzu_db"
    before = dump(store)
    result = _json(capsys, ["merge", AGENT, "a3", "a2", "a1", "--home", str(home), "--yes",
                            "--json"])  # fmt: skip
    assert result["merged"] is True
    assert [(e["rel"], e["source"], e["target"]) for e in result["edges"]] == [
        ("SUPERSEDES", "a3", "a2"), ("SUPERSEDES", "a3", "a1")]  # fmt: skip
    assert Path(result["backup"]).parent == home / "backups"
    assert dump(store) != before
    assert main(["restore", result["backup"], "--yes"]) == 0
    assert "2 edges the merge added taken out" in capsys.readouterr().out
    assert dump(store) == before


def test_merge_without_yes_and_no_terminal_changes_nothing(home: Path, capsys, monkeypatch):
    store = home / "hierarchical_memory" / AGENT / "kuzu_db"
    before = dump(store)
    monkeypatch.setattr("sys.stdin", io.StringIO("y\n"))
    assert main(["merge", AGENT, "b2", "b1", "--home", str(home)]) == 2
    assert "refusing to merge without --yes" in capsys.readouterr().err
    assert main(["merge", AGENT, "b2", "b1", "--home", str(home), "--dry-run"]) == 0
    assert "+ SUPERSEDES b2 -> b1" in capsys.readouterr().out
    assert dump(store) == before


@pytest.mark.parametrize("value", ["0", "1.5", "x"])
def test_bad_threshold_is_a_usage_error(home: Path, value: str, capsys):
    with pytest.raises(SystemExit) as stop:
        main(["duplicates", AGENT, "--home", str(home), "--threshold", value])
    assert stop.value.code == 2


def test_unknown_fact_exits_2(home: Path, capsys):
    assert main(["merge", AGENT, "a3", "nope", "--home", str(home), "--yes"]) == 2
    assert "No fact nope of agent ops" in capsys.readouterr().err


def test_duplicates_and_merge_on_a_rust_sqlite_store(rust_sqlite_home: Path, capsys):
    """--store naming amplihack-rs's <agent>.db: its writer is named, the merge writes the
    import's supersedes_edges row, restore takes it out again."""
    store = rust_sqlite_home / "home/.amplihack/hierarchical_memory/ops-agent.db"
    report = _json(capsys, ["duplicates", "ops-agent", "--store", str(store), "--threshold",
                            "0.3", "--json"])  # fmt: skip
    assert (report["engine"], report["writer"]) == ("sqlite", "amplihack-rs")
    group = report["groups"][0]["facts"]
    before = dump(store)
    result = _json(capsys, ["merge", "ops-agent", group[0]["memory_id"], group[1]["memory_id"],
                            "--store", str(store), "--yes", "--json"])  # fmt: skip
    assert [e["rel"] for e in result["edges"]] == ["SUPERSEDES"]
    assert len(dump(store)["supersedes_edges"]) == len(before["supersedes_edges"]) + 1
    assert main(["restore", result["backup"], "--yes"]) == 0
    assert dump(store) == before
