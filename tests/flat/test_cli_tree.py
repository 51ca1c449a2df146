"""`memexplorer tree` through the CLI: backends, warnings, exit codes, read-only."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from flat_stores import FILES, copy_fixture
from store_helpers import checksums, held_by_another_process

from memexplorer.cli.commands.tree import stars
from memexplorer.cli.main import main


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch):
    for name in ("AMPLIHACK_MEMORY_BACKEND", "AMPLIHACK_GRAPH_DB_PATH", "AMPLIHACK_KUZU_DB_PATH"):
        monkeypatch.delenv(name, raising=False)


def tree_json(capsys, *args: str) -> dict:
    assert main(["tree", *args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_json_tree_excludes_expired_rows(flat_store, capsys):
    before = checksums(flat_store.home)
    data = tree_json(capsys, "--home", str(flat_store.home), "--backend", flat_store.backend)
    assert data["backend"] == flat_store.backend and data["resolution"]["source"] == "flag"
    assert data["agents"] == flat_store.agent_counts()
    sessions = {s["session_id"]: s for s in data["sessions"]}
    assert {sid: s["memory_count"] for sid, s in sessions.items()} == flat_store.session_counts()
    shown = {m["memory_id"] for s in data["sessions"] for m in s["memories"]}
    assert not shown & flat_store.expired_ids
    assert len(shown) == len(flat_store.live_rows)
    assert checksums(flat_store.home) == before


def test_plain_tree_shows_sessions_stars_and_agents(flat_store, capsys):
    assert main(["tree", "--home", str(flat_store.home), "--session", "sess-alpha"]) == 0
    out = capsys.readouterr().out
    assert "session sess-alpha" in out and "sess-beta" not in out
    assert stars(9) in out and "★★★★★" in out
    assert "Queues need back-pressure" in out
    assert "Scratch note" not in out
    assert "architect: 2" in out and "builder: 2" in out and "reviewer: 2" in out


def test_depth_and_type(flat_store, capsys):
    home = str(flat_store.home)
    shallow = tree_json(capsys, "--home", home, "--depth", "1")
    assert all("memories" not in s for s in shallow["sessions"])
    lines = tree_json(capsys, "--home", home, "--depth", "2")
    assert all("content" not in m for s in lines["sessions"] for m in s["memories"])
    kind = "decision" if flat_store.backend == "sqlite" else "procedural"
    typed = tree_json(capsys, "--home", home, "--type", kind)
    types = {m["memory_type"] for s in typed["sessions"] for m in s["memories"]}
    assert types == {kind}
    assert sum(s["matching"] for s in typed["sessions"]) == 2


def test_stars_scale():
    assert [stars(i) for i in (0, 1, 5, 6, 10)] == [
        "☆☆☆☆☆", "★☆☆☆☆", "★★★☆☆", "★★★☆☆", "★★★★★",
    ]  # fmt: skip
    assert stars(None) == ""


@pytest.mark.parametrize("token", ["KUZU", "Graph-DB"])
def test_bad_casing_is_bad_usage(tmp_path, capsys, token):
    assert main(["tree", "--home", str(tmp_path), "--backend", token]) == 2
    err = capsys.readouterr().err
    assert "Unknown memory backend" in err and "casing is exact" in err


def test_env_var_and_flag_priority(_pristine_flat, tmp_path, capsys, monkeypatch):
    home = tmp_path / ".amplihack"
    copy_fixture(_pristine_flat["graph-db"], home)
    (home / "memory.db").write_bytes(_pristine_flat["sqlite"].path.read_bytes())
    # memory_graph.db selects nothing in resolve_backend_with_autodetect: sqlite.
    assert tree_json(capsys, "--home", str(home))["backend"] == "sqlite"
    monkeypatch.setenv("AMPLIHACK_MEMORY_BACKEND", "sqlite")
    assert tree_json(capsys, "--home", str(home))["resolution"]["source"] == "env"
    assert tree_json(capsys, "--home", str(home), "--backend", "kuzu")["backend"] == "graph-db"
    monkeypatch.setenv("AMPLIHACK_MEMORY_BACKEND", "KUZU")  # a typo: an error, as in resolve.rs
    assert main(["tree", "--home", str(home), "--json"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and "'KUZU'" in captured.err and "Valid values" in captured.err


@pytest.mark.parametrize("backend", sorted(FILES))
def test_auto_detect_with_one_store(_pristine_flat, tmp_path, capsys, backend):
    home = copy_fixture(_pristine_flat[backend], tmp_path / ".amplihack").home
    data = tree_json(capsys, "--home", str(home))
    assert (data["backend"], data["resolution"]["source"]) == (backend, "auto-detect")


def test_empty_home_says_what_is_missing(tmp_path, capsys):
    assert main(["tree", "--home", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "No sqlite flat memory store" in err and "--backend graph-db" in err


def test_unknown_session_and_depth(flat_store, capsys):
    assert main(["tree", "--home", str(flat_store.home), "--session", "nope"]) == 2
    assert "No session 'nope'" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exited:
        main(["tree", "--home", str(flat_store.home), "--depth", "0"])
    assert exited.value.code == 2


def run_cli(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "memexplorer", *args], capture_output=True, text=True, env=env
    )


def test_no_home_exits_2(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "HOME"}
    result = run_cli("tree", env=env)
    assert result.returncode == 2 and "HOME is not set" in result.stderr
    assert "Traceback" not in result.stderr


def test_locked_graph_store_exits_3(_pristine_flat, tmp_path, capsys):
    fixture = copy_fixture(_pristine_flat["graph-db"], tmp_path / ".amplihack")
    with held_by_another_process(fixture.path, "rw"):
        assert main(["tree", "--home", str(fixture.home), "--backend", "graph-db"]) == 3
    assert "Store is in use" in capsys.readouterr().err
