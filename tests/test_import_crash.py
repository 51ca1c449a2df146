"""An import without merge is atomic in the strong sense: a process killed with
SIGKILL at any point leaves the agent's previous data exactly as it was (or,
once the commit went through, the new data whole), never a mix or an empty agent.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from memexplorer.memory.hierarchical_memory import HierarchicalMemory

AGENT = "victim"
KEYS = ("semantic_nodes", "episodic_nodes", "similar_to_edges", "derives_from_edges",
        "supersedes_edges", "transitioned_to_edges")  # fmt: skip

#: Runs an import in a child process that kills itself before statement number
#: ``kill_at`` (counted from 1), or ``delay`` seconds after COMMIT began.
CHILD = r"""
import os, signal, sys, threading
from memexplorer.storage import graphdb
from memexplorer.operator.transfer import import_agent_store

store, source, kill_at, delay = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
original = graphdb.KuzuStore._run
count = 0

def run(self, cypher, params, reuse=False):
    global count
    count += 1
    if count == kill_at:
        os.kill(os.getpid(), signal.SIGKILL)
    if cypher == "COMMIT" and delay >= 0:
        threading.Timer(delay, os.kill, (os.getpid(), signal.SIGKILL)).start()
    if cypher == "COMMIT":
        print("commit", count, flush=True)
    return original(self, cypher, params, reuse)

graphdb.KuzuStore._run = run
import_agent_store(sys.argv[5], source, storage_path=store)
print("done", count, flush=True)
"""


def _canonical(data: dict) -> dict[str, list[str]]:
    return {k: sorted(json.dumps(i, sort_keys=True) for i in data.get(k, [])) for k in KEYS}


def _graph_of(store: Path, agent: str = AGENT) -> dict[str, list[str]]:
    with HierarchicalMemory(agent, store, mode="write") as memory:
        return _canonical(memory.export_graph("1.1"))


def _child(store: Path, source: Path, kill_at: int, delay: float = -1.0):
    # The replaced store's backup goes to <HOME>/.amplihack/backups: beside the store.
    env = {**os.environ, "HOME": str(store.parent / "home")}
    return subprocess.run(
        [sys.executable, "-c", CHILD, str(store), str(source), str(kill_at), str(delay), AGENT],
        capture_output=True, text=True, timeout=300, env=env,
    )  # fmt: skip


@pytest.fixture(scope="module", params=["alone", "shared"])
def scene(request, tmp_path_factory, _pristine_stores):
    """A store holding the ops-agent export as ``victim`` (alone, or beside another
    agent, which takes the import through a copy of the store), and a file to import."""
    root = tmp_path_factory.mktemp("crash")
    exports = _pristine_stores / "exports"
    store = root / "pristine-store"
    with HierarchicalMemory(AGENT, store) as memory:
        memory.import_from_json(json.loads((exports / "ops-agent.export_to_json.json").read_text()))
    if request.param == "shared":
        support = json.loads((exports / "support-bot.export_to_json.json").read_text())
        with HierarchicalMemory("bystander", store) as memory:
            memory.import_from_json(support)
    incoming = exports / "research-agent.export_to_json.json"
    before = _graph_of(store)
    finished = root / "finished-store"
    finished.write_bytes(store.read_bytes())
    done = _child(finished, incoming, kill_at=0)
    assert done.returncode == 0, done.stderr
    statements = int(done.stdout.split("done")[1])
    # The import commits each batch into its private copy, which replaces the store
    # only after the last COMMIT: until then a kill leaves the old data.
    commit_at = int(done.stdout.split("commit")[-1].split()[0])
    after = _graph_of(finished)
    assert after != before and after["semantic_nodes"]
    bystander = _graph_of(store, "bystander")
    assert _graph_of(finished, "bystander") == bystander
    return store, incoming, before, after, statements, commit_at, bystander


def _points(statements: int, commit_at: int) -> list[int]:
    """Kill before: the first write, the clear, each insert, the COMMIT, and the close."""
    wanted = {2, 3, 4, commit_at // 2, commit_at - 1, commit_at, commit_at + 1, statements}
    return sorted(point for point in wanted if point <= statements)


def test_killed_at_each_statement(scene, tmp_path):
    store, incoming, before, after, statements, commit_at, bystander = scene
    for kill_at in _points(statements, commit_at):
        victim = tmp_path / f"store-{kill_at}"
        victim.write_bytes(store.read_bytes())
        child = _child(victim, incoming, kill_at)
        assert child.returncode == -signal.SIGKILL, (kill_at, child.stderr)
        expected = before if kill_at <= commit_at else after
        assert _graph_of(victim) == expected, f"killed before statement {kill_at}"
        assert _graph_of(victim, "bystander") == bystander
    leftovers = sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("."))
    assert leftovers, "a killed import leaves its copy behind"
    survivor = tmp_path / f"store-{statements}"
    assert _child(survivor, incoming, kill_at=0).returncode == 0
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(f".{survivor.name}.")]


@pytest.mark.parametrize("delay", [0.0, 0.002, 0.01, 0.05])
def test_killed_while_committing(scene, tmp_path, delay):
    store, incoming, before, after, _, _, bystander = scene
    victim = tmp_path / "store"
    victim.write_bytes(store.read_bytes())
    _child(victim, incoming, kill_at=0, delay=delay)
    assert _graph_of(victim) in (before, after)
    assert _graph_of(victim, "bystander") == bystander
