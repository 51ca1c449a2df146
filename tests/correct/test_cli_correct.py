"""``memexplorer correct``: preview, confirm, --json, --undo and exit codes.

Expected rows come from the library's oracle (tests/fixtures/
expected_correction_kuzu.json) and from the store read plainly, never from the
engine's own answer.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from gate_helpers import gate_held_elsewhere

from memexplorer.cli.main import main

from .store_dump import dump_store

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
ORACLE = json.loads((FIXTURES / "expected_correction_kuzu.json").read_text())["cases"][0]
ASKED = ORACLE["request"]
HOME = "home/.amplihack"


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def _args(root: Path, *more: str) -> list[str]:
    return ["correct", ASKED["agent"], ASKED["memory_id"], "--content", ASKED["content"],
            "--home", str(root / HOME), *more]  # fmt: skip


def _store(root: Path) -> Path:
    return root / ASKED["store"]


def test_json_without_yes_prints_the_plan_and_writes_nothing(reference_stores: Path, capsys):
    before = dump_store(_store(reference_stores))
    assert main(_args(reference_stores, "--json")) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["written"] is False
    plan = out["plan"]
    new = plan["node"]["memory_id"]
    assert {**plan["node"], "memory_id": "<new>", "created_at": "<created_at>"} == ORACLE["node"]
    planned = sorted(json.dumps({**e, "source": "<new>" if e["source"] == new else e["source"]},
                                sort_keys=True) for e in plan["edges"])  # fmt: skip
    assert planned == sorted(json.dumps(e, sort_keys=True) for e in ORACLE["edges"])
    assert plan["supersedes_old"] is True and plan["changes"] == []
    assert dump_store(_store(reference_stores)) == before


def test_refuses_without_yes_when_nobody_can_confirm(reference_stores: Path, capsys):
    before = dump_store(_store(reference_stores))
    assert main(_args(reference_stores)) == 2
    captured = capsys.readouterr()
    assert "SUPERSEDES" in captured.out and ASKED["content"] in captured.out
    assert "refusing to write without --yes" in captured.err
    assert dump_store(_store(reference_stores)) == before


def test_the_answer_decides(reference_stores: Path, capsys, monkeypatch: pytest.MonkeyPatch):
    before = dump_store(_store(reference_stores))
    monkeypatch.setattr("sys.stdin", _Terminal("n\n"))
    assert main(_args(reference_stores)) == 0
    assert "[y/N]" in capsys.readouterr().err
    assert dump_store(_store(reference_stores)) == before
    monkeypatch.setattr("sys.stdin", _Terminal("y\n"))
    assert main(_args(reference_stores)) == 0
    out = capsys.readouterr().out
    assert "undo with: memexplorer correct --undo" in out
    nodes, edges = dump_store(_store(reference_stores))
    assert len(nodes) == len(before[0]) + 1
    assert len(edges) == len(before[1]) + len(ORACLE["edges"])


def test_yes_then_undo_gives_the_store_back(reference_stores: Path, capsys):
    before = dump_store(_store(reference_stores))
    assert main(_args(reference_stores, "--yes", "--json")) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["written"] is True
    backup = Path(out["backup"])
    assert backup.parent == reference_stores / HOME / "backups"
    assert main(["correct", "--undo", str(backup), "--json"]) == 0
    undone = json.loads(capsys.readouterr().out)
    assert undone["edges_removed"] == len(ORACLE["edges"])
    nodes, edges = dump_store(_store(reference_stores))
    assert nodes == before[0] and sorted(edges) == sorted(before[1])
    assert main(["correct", "--undo", str(backup)]) == 1
    assert "undone already" in capsys.readouterr().err


def test_exit_3_while_another_writer_holds_the_store(reference_stores: Path, capsys):
    with gate_held_elsewhere(_store(reference_stores), "clean"):
        assert main(_args(reference_stores, "--yes")) == 3
    assert "clean" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (("memory_id", "no-such-fact"), "No fact no-such-fact"),
        (("content", "   "), "corrected content is empty"),
    ],
)
def test_bad_input_exits_2(reference_stores: Path, capsys, change, message):
    args = _args(reference_stores, "--yes")
    args[args.index(ASKED[change[0]])] = change[1]
    assert main(args) == 2
    assert message in capsys.readouterr().err


def test_confidence_outside_0_1_is_a_usage_error(reference_stores: Path):
    with pytest.raises(SystemExit) as caught:
        main(_args(reference_stores, "--confidence", "1.5"))
    assert caught.value.code == 2


def test_amplihack_rs_store_says_nothing_is_superseded(rust_sqlite_home: Path, capsys):
    store = rust_sqlite_home / HOME / "hierarchical_memory" / "ops-agent.db"
    args = ["correct", "ops-agent", "ops-rep-2", "--content", "The replica count is 9.",
            "--store", str(store), "--yes"]  # fmt: skip
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "amplihack-rs" in out and "never supersedes" in out
    assert "SUPERSEDES" not in out
