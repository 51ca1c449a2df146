"""`memexplorer stats` lists a store's agents sorted by name, on every run.

Kuzu hands back a count's groups in no fixed order (a flat graph store of sixteen
agents came back in a different order on each of three reads), so the order
below is written by hand: the agents are written in keyboard order, and sorted
they are alphabetical.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from memexplorer.memory.flat_store import open_flat_store

#: Written in this order (not alphabetical), each with one to three memories.
WRITTEN = [f"agent-{letter}" for letter in "qwertyuiopasdfgh"]
SORTED = [
    "agent-a", "agent-d", "agent-e", "agent-f", "agent-g", "agent-h", "agent-i", "agent-o",
    "agent-p", "agent-q", "agent-r", "agent-s", "agent-t", "agent-u", "agent-w", "agent-y",
]  # fmt: skip
TYPES = {"graph-db": ("semantic", "episodic", "procedural"), "sqlite": ("learning",) * 3}
FILES = {"graph-db": "memory_graph.db", "sqlite": "memory.db"}


def _stats(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "memexplorer", "stats", *args], capture_output=True, text=True
    )


@pytest.fixture(params=sorted(FILES))
def many_agents(request, tmp_path: Path) -> Path:
    backend = request.param
    path = tmp_path / ".amplihack" / FILES[backend]
    path.parent.mkdir(parents=True)
    with open_flat_store((backend, path), read_only=False) as store:
        for number, agent in enumerate(WRITTEN):
            for kind in range(number % 3 + 1):
                store.store_session_learning(
                    "sess-1", agent, f"note {kind} of {agent}", memory_type=TYPES[backend][kind]
                )
    return path


def test_json_lists_the_agents_sorted_on_every_run(many_agents: Path):
    for _ in range(3):
        result = _stats(str(many_agents), "--json")
        assert result.returncode == 0, result.stderr
        (store,) = json.loads(result.stdout)["stores"]
        assert list(store["agents"]) == SORTED
    assert sum(sum(counts.values()) for counts in store["agents"].values()) == 31  # 5 × (1+2+3) + 1


def test_the_text_table_lists_them_in_the_same_order(many_agents: Path):
    result = _stats(str(many_agents))
    assert result.returncode == 0, result.stderr
    rows = [line.split()[0] for line in result.stdout.splitlines() if line.startswith(" agent-")]
    assert rows == SORTED


def test_a_shared_graph_store_lists_its_agents_sorted(reference_stores: Path):
    """The two agents of the reference library's shared store, alphabetically."""
    result = _stats(str(reference_stores / "shared_two_agents" / "kuzu_db"), "--json")
    assert result.returncode == 0, result.stderr
    assert list(json.loads(result.stdout)["stores"][0]["agents"]) == [
        "escalation-bot", "triage-bot"
    ]  # fmt: skip
