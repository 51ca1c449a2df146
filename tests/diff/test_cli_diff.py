"""`memexplorer snapshot` and `memexplorer diff` through the CLI: JSON for scripts,
clear errors (what, where, what to do) and never a traceback."""

from __future__ import annotations

import json
from pathlib import Path

from diff_exports import AFTER, BEFORE

from memexplorer.cli.main import main

HOME = "home/.amplihack"


def _write(path: Path, data: dict) -> Path:
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_diff_json_shape(tmp_path: Path, capsys) -> None:
    a, b = _write(tmp_path / "a.json", BEFORE), _write(tmp_path / "b.json", AFTER)
    assert main(["diff", str(a), str(b), "--json"]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert answer["diff_format"] == 1 and answer["same_agent"] is True
    assert answer["a"] == {
        "kind": "export",
        "path": str(a),
        "agent": "ops-agent",
        "taken_at": "2026-11-25T09:46:40+00:00",
    }
    tables = {t["table"]: t for t in answer["tables"]}
    assert list(tables) == [
        "SemanticMemory",
        "EpisodicMemory",
        "SIMILAR_TO",
        "DERIVES_FROM",
        "SUPERSEDES",
        "TRANSITIONED_TO",
    ]
    facts = tables["SemanticMemory"]
    assert [n["memory_id"] for n in facts["added"]] == ["f-dns", "f-replicas-3"]
    bill = next(c for c in facts["changed"] if c["key"] == "f-bill")
    assert bill == {
        "key": "f-bill",
        "old_key": "f-bill",
        "matched_by": "memory_id",
        "fields": {"confidence": {"a": 0.6, "b": 0.9}},
    }
    assert answer["chains"] == [
        {
            "concept": "checkout replicas",
            "direction": "on",
            "new_steps": 1,
            "before": [{"memory_id": "f-replicas-2", "content": "checkout-api runs 5 replicas"}],
            "after": [{"memory_id": "f-replicas-3", "content": "checkout-api runs 7 replicas"}],
        }
    ]


def test_diff_text(tmp_path: Path, capsys) -> None:
    a, b = _write(tmp_path / "a.json", BEFORE), _write(tmp_path / "b.json", AFTER)
    assert main(["diff", str(a), str(b)]) == 0
    out = capsys.readouterr().out
    assert "SemanticMemory: 2 added, 1 removed, 3 changed" in out
    assert "  ~ f-new-region (was f-old-region, same concept)" in out
    assert "      confidence: 0.6 -> 0.9" in out
    assert (
        "chain [checkout replicas] moved on (1 new step(s)): checkout-api runs 5 replicas "
        "-> checkout-api runs 7 replicas" in out
    )


def test_snapshot_then_diff_with_the_store(reference_stores: Path, capsys) -> None:
    home = reference_stores / HOME
    assert main(["snapshot", "ops-agent", "--home", str(home), "--json"]) == 0
    snap = json.loads(capsys.readouterr().out)
    path = Path(snap["path"])
    # Kept per store: under the agent, in a folder named by the store it was taken from.
    assert path.parent.parent == home / "backups" / ".snapshots" / "ops-agent"
    assert path.parent.name == "hierarchical_memory+ops-agent+kuzu_db"
    assert main(["diff", str(path), "ops-agent", "--home", str(home)]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"A: snapshot {path} · agent ops-agent")
    assert "No differences." in out
    assert main(["backups", "--home", str(home), "--json"]) == 0
    assert json.loads(capsys.readouterr().out) in ([], {"backups": []})  # never a backup
    assert main(["stats", str(home), "--json"]) == 0  # and never a store
    assert str(path.parent) not in capsys.readouterr().out


def test_diff_errors_are_clear(tmp_path: Path, capsys) -> None:
    missing = tmp_path / "nowhere.json"
    assert main(["diff", str(missing), "ops-agent", "--home", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert str(missing) in err and "Traceback" not in err
    other = _write(tmp_path / "b.json", {**AFTER, "agent_name": "research-agent"})
    assert main(["diff", str(_write(tmp_path / "a.json", BEFORE)), str(other)]) == 2
    err = capsys.readouterr().err
    assert "two agents' memories" in err and "--other-agent" in err
    text = _write(tmp_path / "notes.txt", {})
    text.write_text("hello")
    assert main(["diff", str(text), str(other)]) == 2
    assert "neither a store, a JSON export nor a backup folder" in capsys.readouterr().err


def test_files_that_are_not_exports_are_refused_clearly(tmp_path: Path, capsys) -> None:
    good = _write(tmp_path / "good.json", BEFORE)
    cases = {
        "list.json": "[1, 2]",
        "empty.json": "{}",
        "no-id.json": json.dumps({**BEFORE, "semantic_nodes": [{"content": "no memory_id"}]}),
        "cut.json": json.dumps(BEFORE)[:200],
    }
    for name, text in cases.items():
        bad = tmp_path / name
        bad.write_text(text)
        assert main(["diff", str(bad), str(good)]) == 2, name
        err = capsys.readouterr().err
        assert f"{bad} cannot be compared: " in err, (name, err)
        assert "Traceback" not in err
