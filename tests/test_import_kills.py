"""A raw-db import and a JSON replace import SIGKILLed at every counted file
operation and at 20 seeded random instants each: after every kill the agent's
store is at its path, opens, and holds either the old data or the new, whole (the
README's promise: a kill at any point leaves the old data).

The counted points are each ``open``, ``sendfile``, ``fsync``, ``link``,
``rename``, ``replace``, ``unlink`` and ``mkdir`` of the import in turn (about 30),
so every step between the first copy and the last rename is killed once; the
random instants fall within a full import's run time and reach inside the
database engine's own writes. One driver process forks an import per point, so
no point pays for starting Python.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from store_helpers import checksums

from memexplorer.operator.transfer import import_agent_store
from memexplorer.operator.transfer_common import agent_counts

pytestmark = pytest.mark.slow

HIER = "home/.amplihack/hierarchical_memory"
POINTS = 20
SEED = 20261123

DRIVER = r"""
import json, os, random, shutil, signal, sys, time
from pathlib import Path
from memexplorer.operator.transfer import import_agent_store

kind, original, source, agent, work, seed, points = sys.argv[1:8]
work, points = Path(work), int(points)
COUNTED = ("open", "sendfile", "fsync", "link", "rename", "replace", "unlink", "mkdir")


def run(folder, kill_at):
    # A fresh copy of the store in ``folder``; a child imports into it and kills
    # itself before its ``kill_at``-th counted file operation (0: never).
    folder.mkdir()
    shutil.copyfile(original, folder / "kuzu_db")
    pid = os.fork()
    if pid:
        return pid
    for name in COUNTED:
        real = getattr(os, name)
        def counted(*args, _real=real, **kwargs):
            nonlocal_count[0] += 1
            if nonlocal_count[0] == kill_at:
                os.kill(os.getpid(), signal.SIGKILL)
            return _real(*args, **kwargs)
        setattr(os, name, counted)
    try:
        import_agent_store(agent, source, format=kind, storage_path=folder / "kuzu_db",
                           home=folder / "home")
    except BaseException as exc:
        (folder / "failed").write_text(repr(exc))
        os._exit(1)
    (folder / "operations").write_text(str(nonlocal_count[0]))
    os._exit(0)


nonlocal_count = [0]
started = time.monotonic()
pid = run(work / "full", 0)
_, status = os.waitpid(pid, 0)
took = time.monotonic() - started
assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, (work / "full" / "failed").read_text()
operations = int((work / "full" / "operations").read_text())
rng = random.Random(int(seed))
plan = [(n, 0.0) for n in range(1, operations + 1)]  # every counted operation
plan += [(0, rng.uniform(0, took)) for _ in range(points)]  # and random instants
for point, (kill_at, delay) in enumerate(plan):
    by_count = kill_at > 0
    pid = run(work / f"point-{point}", kill_at)
    if not by_count:
        time.sleep(delay)  # the kill point itself, not a wait for anything
        os.kill(pid, signal.SIGKILL)
    _, status = os.waitpid(pid, 0)
    killed = os.WIFSIGNALED(status)
    print(json.dumps({"folder": str(work / f"point-{point}"), "kill_at": kill_at,
                      "delay": delay, "killed": killed}), flush=True)
print(json.dumps({"operations": operations, "seconds": took}), flush=True)
"""


def _drive(kind: str, original: Path, source: Path, agent: str, work: Path) -> list[dict]:
    work.mkdir()
    run = subprocess.run(
        [sys.executable, "-c", DRIVER, kind, str(original), str(source), agent, str(work),
         str(SEED), str(POINTS)],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    lines = [json.loads(line) for line in run.stdout.splitlines()]
    assert lines[-1]["operations"] > 10, lines[-1]
    points = lines[:-1]
    assert len(points) == lines[-1]["operations"] + POINTS
    assert sum(p["killed"] for p in points) >= len(points) // 2, points  # most points did kill
    return points


def _leftovers(folder: Path) -> list[str]:
    """What a killed import may leave beside the store besides the store itself: its
    stage (hidden, removed by the next import), the .bak, the backup in home/."""
    allowed = {"kuzu_db", "kuzu_db.bak", "home", "operations", "kuzu_db.memexplorer-lock"}
    return sorted(
        p.name for p in folder.iterdir() if p.name not in allowed and ".import-" not in p.name
    )


def _with_a_stage_left(points: list[dict]) -> Path:
    """The folder of a point whose killed import left its stage behind."""
    for point in points:
        folder = Path(point["folder"])
        if any(".import-" in p.name for p in folder.iterdir()):
            return folder
    raise AssertionError(f"no kill left a stage: {points}")


def test_a_killed_raw_db_import_always_leaves_a_whole_store(reference_stores, tmp_path):
    original = reference_stores / HIER / "ops-agent" / "kuzu_db"
    source = tmp_path / "research.kuzu"
    source.write_bytes((reference_stores / HIER / "research-agent" / "kuzu_db").read_bytes())
    old, new = checksums(original)["kuzu_db"], checksums(source)["research.kuzu"]
    counts = {old: ("ops-agent", agent_counts("ops-agent", original)),
              new: ("research-agent", agent_counts("research-agent", source))}  # fmt: skip
    points = _drive("raw-db", original, source, "research-agent", tmp_path / "work")
    for point in points:
        folder = Path(point["folder"])
        store = folder / "kuzu_db"
        assert store.is_file(), point
        agent, expected = counts[checksums(store)["kuzu_db"]]  # the old bytes or the new
        assert agent_counts(agent, store) == expected, point  # and it opens
        assert _leftovers(folder) == [], point
    # The next import cleans up after a killed one.
    folder = _with_a_stage_left(points)
    import_agent_store("research-agent", source, format="raw-db", storage_path=folder / "kuzu_db",
                       home=folder / "home")  # fmt: skip
    assert checksums(folder / "kuzu_db")["kuzu_db"] == new
    assert not [p for p in folder.iterdir() if ".import-" in p.name]


def test_a_killed_json_replace_import_always_leaves_the_old_or_the_new(reference_stores,
                                                                       tmp_path):  # fmt: skip
    original = reference_stores / HIER / "ops-agent" / "kuzu_db"
    source = reference_stores / "exports" / "research-agent.export_to_json.json"
    old = agent_counts("ops-agent", original)
    fresh = tmp_path / "fresh" / "kuzu_db"
    import_agent_store("ops-agent", source, storage_path=fresh)
    new = agent_counts("ops-agent", fresh)
    assert old != new
    points = _drive("json", original, source, "ops-agent", tmp_path / "work")
    for point in points:
        folder = Path(point["folder"])
        store = folder / "kuzu_db"
        assert store.is_file(), point
        assert agent_counts("ops-agent", store) in (old, new), point
        assert _leftovers(folder) == [], point
    folder = _with_a_stage_left(points)
    import_agent_store("ops-agent", source, storage_path=folder / "kuzu_db", home=folder / "home")
    assert agent_counts("ops-agent", folder / "kuzu_db") == new
    assert not [p for p in folder.iterdir() if ".import-" in p.name]
