"""`memexplorer stats` through the real console entry point."""

from __future__ import annotations

import json
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
    stats = json.loads(run("stats", str(home), "--json").stdout)
    agents = {a for s in stats["stores"] for a in s["agents"]}
    assert agents == {"ops-agent", "research-agent"}
    ops = next(s for s in stats["stores"] if "ops-agent" in s["agents"])
    assert ops["agents"]["ops-agent"]["TRANSITIONED_TO"] == 4
