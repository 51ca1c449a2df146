"""`memexplorer stats` through the real console entry point."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest


def run(*args: str, **kw) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "memexplorer", *args], capture_output=True, text=True, **kw
    )


def test_stats_json_on_a_home(reference_stores, manifest):
    result = run("stats", str(reference_stores / "home" / ".amplihack"), "--json")
    assert result.returncode == 0, result.stderr
    stores = {s["path"]: s for s in json.loads(result.stdout)["stores"]}
    ops = stores[str(reference_stores / "home/.amplihack/hierarchical_memory/ops-agent/kuzu_db")]
    assert ops["kind"] == "hierarchical" and ops["engine"] == "kuzu"
    assert ops["storage_version"] == 39
    assert ops["agents"] == {
        "ops-agent": {"SemanticMemory": 84, "EpisodicMemory": 22, "SIMILAR_TO": 164,
                      "DERIVES_FROM": 27, "SUPERSEDES": 21}
    }  # fmt: skip
    kinds = sorted(s["kind"] for s in stores.values())
    assert kinds == ["experience", "experience", "hierarchical", "hierarchical", "hierarchical"]


@pytest.mark.parametrize(
    "target", ["shared_two_agents/kuzu_db", "home/.amplihack/hierarchical_memory/support-bot"]
)
def test_stats_on_a_file_or_agent_folder(reference_stores, target):
    result = run("stats", str(reference_stores / target), "--json")
    assert result.returncode == 0, result.stderr
    assert len(json.loads(result.stdout)["stores"]) == 1


def test_stats_plain_output(reference_stores):
    result = run("stats", str(reference_stores / "shared_two_agents"))
    assert result.returncode == 0
    assert "triage-bot" in result.stdout and "escalation-bot" in result.stdout
    assert "absent tables: TRANSITIONED_TO" in result.stdout


def test_stats_errors_have_exit_codes(tmp_path):
    missing = run("stats", str(tmp_path / "missing"))
    assert missing.returncode == 2 and "No such store" in missing.stderr
    (tmp_path / "junk").write_bytes(b"\x00" * 100)
    junk = run("stats", str(tmp_path / "junk"))
    assert junk.returncode == 2 and "Not a memory store" in junk.stderr
    assert "Traceback" not in junk.stderr


def test_demo_writes_a_home_and_reports_it(tmp_path):
    home = tmp_path / "demo" / ".amplihack"
    result = run("demo", "--home", str(home), "--stats")
    assert result.returncode == 0, result.stderr
    assert "Wrote a demo home" in result.stderr
    stats = json.loads(run("stats", str(home), "--json").stdout)
    agents = {a for s in stats["stores"] for a in s["agents"]}
    assert agents == {"ops-agent", "research-agent", "support-agent", "reviewer-agent"}
    assert sorted(s["kind"] for s in stats["stores"]) == [
        "cognitive", "experience", "experience", "experience", "flat", "flat",
        "hierarchical", "hierarchical", "hierarchical",
    ]  # fmt: skip
    ops = next(s for s in stats["stores"] if s["path"].endswith("ops-agent/graph_db"))
    assert ops["agents"]["ops-agent"]["TRANSITIONED_TO"] == 4
    audit = run("audit", str(home), "--json")
    assert audit.returncode == 1, audit.stderr  # the demo holds fake credentials
    kinds = sorted(f["kind"] for f in json.loads(audit.stdout)["findings"])
    assert kinds == [
        "aws_key", "db_url", "db_url", "db_url", "github_token", "openai_key", "openai_key",
        "slack_token", "ssh_key",
    ]  # fmt: skip


def test_demo_is_written_only_when_missing(tmp_path):
    home = tmp_path / "demo" / ".amplihack"
    assert run("demo", "--home", str(home), "--stats").returncode == 0
    before = {p: p.stat().st_mtime_ns for p in home.rglob("*")}
    again = run("demo", "--home", str(home), "--stats")
    assert again.returncode == 0, again.stderr
    assert "Wrote a demo home" not in again.stderr
    assert {p: p.stat().st_mtime_ns for p in home.rglob("*")} == before


def test_the_app_refuses_to_start_without_a_terminal(tmp_path):
    # Without a terminal the app would wait for input forever at full CPU.
    result = run(str(tmp_path))
    assert result.returncode == 2
    assert "needs a terminal" in result.stderr and "memexplorer stats" in result.stderr


def test_stats_json_lists_every_table_for_every_agent(tmp_path):
    """The demo home's flat graph store has agents with no rows in some tables; the
    text table prints 0 for them and the JSON must too (hand-counted from the demo)."""
    home = tmp_path / "demo" / ".amplihack"
    assert run("demo", "--home", str(home), "--stats").returncode == 0
    result = run("stats", str(home / "memory_graph.db"), "--json")
    assert result.returncode == 0, result.stderr
    agents = json.loads(result.stdout)["stores"][0]["agents"]
    tables = {"EpisodicMemory", "SemanticMemory", "ProceduralMemory"}
    assert all(set(counts) == tables for counts in agents.values()), agents
    assert agents["research-agent"] == {
        "EpisodicMemory": 0, "SemanticMemory": 2, "ProceduralMemory": 0
    }  # fmt: skip


def test_stats_show_an_emoji_code_in_a_path_as_stored(reference_stores, tmp_path):
    """rich turns ``:fire:`` into a flame unless told not to; a path is shown as it is."""
    folder = tmp_path / "team:fire:store"
    folder.mkdir()
    shutil.copy2(reference_stores / "shared_two_agents" / "kuzu_db", folder / "kuzu_db")
    result = run("stats", str(folder))
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[0].startswith(f"{folder / 'kuzu_db'}  hierarchical")
    assert "\N{FIRE}" not in result.stdout


def test_a_terminal_shows_an_emoji_code_as_stored_too(monkeypatch, capsys):
    from memexplorer.cli.commands.common import output_console

    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    output_console().print("agent :fire: here")
    assert capsys.readouterr().out == "agent :fire: here\n"


def _readers(count: int) -> dict[str, str]:
    return {**os.environ, "MEMEXPLORER_READERS": str(count)}


def test_stats_read_in_several_processes_say_what_one_process_says(tmp_path):
    """With idle cores `stats` reads a home's stores in forked children too; the
    output, the damaged stores' errors and the exit code are those of the same
    command reading them one after another, in one process."""
    home = tmp_path / "demo" / ".amplihack"
    assert run("demo", "--home", str(home), "--stats").returncode == 0
    kuzu_store = home / "hierarchical_memory" / "research-agent" / "graph_db"
    sqlite_store = home / "memory" / "ops-agent" / "experiences.db"
    for store, keep in ((kuzu_store, 20_000), (sqlite_store, 3_000)):
        store.write_bytes(store.read_bytes()[:keep])  # cut short: damaged
    for args in (("--json",), ()):
        several = run("stats", str(home), *args, env=_readers(3))
        alone = run("stats", str(home), *args, env=_readers(1))
        assert several.returncode == alone.returncode == 0
        assert several.stdout == alone.stdout and several.stderr == alone.stderr
        assert several.stderr.count("Damaged store") == 2, several.stderr
    stores = json.loads(run("stats", str(home), "--json").stdout)["stores"]
    assert len(stores) == 7  # the demo's nine, less the two cut short


def test_a_fifo_named_like_a_store_is_passed_over_not_waited_on(reference_stores):
    """Reading a FIFO's header waits for a writer that never comes: stats, audit and
    diff must not open one (each store beside it is still read)."""
    home = reference_stores / "home" / ".amplihack"
    os.mkfifo(home / "memory.db")
    os.mkdir(home / "hierarchical_memory" / "evil-agent")
    os.mkfifo(home / "hierarchical_memory" / "evil-agent" / "kuzu_db")
    stats = run("stats", str(home), "--json", timeout=120)
    assert stats.returncode == 0, stats.stderr
    paths = {s["path"] for s in json.loads(stats.stdout)["stores"]}
    assert str(home / "hierarchical_memory/ops-agent/kuzu_db") in paths
    assert str(home / "memory.db") not in paths
    assert run("audit", str(home), timeout=120).returncode in (0, 1)
    ops = home / "hierarchical_memory/ops-agent/kuzu_db"
    diff = run("diff", str(home / "memory.db"), str(ops), timeout=120)
    assert diff.returncode == 2 and "Traceback" not in diff.stderr


def test_a_killed_imports_private_copy_is_not_listed_as_a_store(reference_stores):
    """An import killed before its rename leaves ``.<store>.import-PID/<store>``, a
    half-built copy: no listing may show it as one of the home's stores."""
    home = reference_stores / "home" / ".amplihack"
    store = home / "hierarchical_memory/ops-agent/kuzu_db"
    stage = store.with_name(".kuzu_db.import-4194304")
    stage.mkdir(mode=0o700)
    shutil.copyfile(store, stage / "kuzu_db")
    stats = run("stats", str(home), "--json", timeout=120)
    assert stats.returncode == 0, stats.stderr
    paths = {s["path"] for s in json.loads(stats.stdout)["stores"]}
    assert str(store) in paths
    assert not [path for path in paths if ".import-" in path]
