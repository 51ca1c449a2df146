"""`memexplorer correct` beside other processes: a reader that holds the store for a
moment (another memexplorer's preview), an agent that holds it for writing, and
the correcting process killed with SIGKILL in the middle of its write.

The store must always open afterwards with exactly the rows it had before the
correction or exactly the rows the correction adds (the library's oracle,
tests/fixtures/expected_correction_kuzu.json), and the backup must be listed.
Processes are stepped by what they print and by their stdin, never by timing.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from memexplorer.cli.main import main
from memexplorer.operator import correct_write
from memexplorer.operator.backup_records import list_backups

from .store_dump import dump_store, store_diff

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
ORACLE = json.loads((FIXTURES / "expected_correction_kuzu.json").read_text())["cases"][0]
ASKED = ORACLE["request"]
HOME = "home/.amplihack"

#: Opens the store with kuzu itself (an agent or a reader), says so, holds it until
#: stdin closes.
HOLDER = (
    "import sys, importlib\n"
    "engine = importlib.import_module(sys.argv[3])\n"
    "db = engine.Database(sys.argv[1], read_only=sys.argv[2] == 'read')\n"
    "connection = engine.Connection(db)\n"
    "print('held', flush=True)\n"
    "sys.stdin.read()\n"
)

#: Runs `memexplorer correct` and SIGKILLs itself in the write: after the new fact
#: and one edge ("mid", inside the transaction) or once it committed ("committed").
KILLER = """
import os, signal, sys
from memexplorer.cli.main import main
from memexplorer.operator import correct_write

real, when = correct_write.open_for_writing, sys.argv[1]

class Killed:
    def __init__(self, graph):
        self.graph, self.statements = graph, 0
    def __enter__(self):
        self.graph.__enter__()
        return self
    def __exit__(self, *exc):
        if when == "committed":
            os.kill(os.getpid(), signal.SIGKILL)
        return self.graph.__exit__(*exc)
    def transaction(self):
        return self.graph.transaction()
    def execute(self, *args, **kwargs):
        result = self.graph.execute(*args, **kwargs)
        self.statements += 1
        if when == "mid" and self.statements == 2:
            os.kill(os.getpid(), signal.SIGKILL)
        return result

correct_write.open_for_writing = lambda store: Killed(real(store))
sys.exit(main(sys.argv[2:]))
"""


def _args(root: Path) -> list[str]:
    return ["correct", ASKED["agent"], ASKED["memory_id"], "--content", ASKED["content"],
            "--home", str(root / HOME), "--yes"]  # fmt: skip


def _env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k != "MEMEXPLORER_READ_ONLY"}


def _hold(store: Path, mode: str, engine: str = "kuzu") -> subprocess.Popen[str]:
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(store), mode, engine],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True, env=_env(),
    )  # fmt: skip
    assert holder.stdout is not None and holder.stdout.readline().split() == ["held"]
    return holder


def _release(holder: subprocess.Popen[str]) -> None:
    holder.communicate("", timeout=60)
    assert holder.returncode == 0


def _added(before, store: Path) -> None:
    """The store holds exactly the oracle's new fact and edges more than before."""
    found = store_diff(before, dump_store(store))
    assert found["node"] == ORACLE["node"]
    assert sorted(json.dumps(e, sort_keys=True) for e in found["edges"]) == sorted(
        json.dumps(e, sort_keys=True) for e in ORACLE["edges"]
    )


def test_a_reader_holding_the_store_for_a_moment_is_waited_for(
    reference_stores: Path, capsys, monkeypatch: pytest.MonkeyPatch
):
    store = reference_stores / ASKED["store"]
    before = dump_store(store)
    reader = _hold(store, "read")
    waits = []

    def reader_lets_go(seconds: float) -> None:
        waits.append(seconds)
        if reader.returncode is None:
            _release(reader)  # the other preview ends while the write waits

    clock = SimpleNamespace(monotonic=time.monotonic, sleep=reader_lets_go, time_ns=time.time_ns)
    monkeypatch.setattr(correct_write, "time", clock)  # this module's waits only
    try:
        assert main(_args(reference_stores)) == 0
    finally:
        if reader.returncode is None:
            _release(reader)
    assert waits  # the first open met the reader
    _added(before, store)


def test_an_agent_holding_the_store_for_writing_is_refused_cleanly(
    reference_stores: Path, capsys, monkeypatch: pytest.MonkeyPatch
):
    store = reference_stores / ASKED["store"]
    before = dump_store(store)
    agent = _hold(store, "write")
    try:
        monkeypatch.setattr(correct_write, "READERS_WAIT_S", 0.0)
        assert main(_args(reference_stores)) == 3
    finally:
        _release(agent)
    err = capsys.readouterr().err
    assert err.startswith("error: Store is in use") and "Traceback" not in err
    assert dump_store(store) == before
    assert list_backups(reference_stores / HOME) == []


def test_a_ladybug_agent_writing_lets_the_preview_read_but_not_the_write(
    ladybug_stores: Path, tmp_path: Path, capsys, monkeypatch: pytest.MonkeyPatch
):
    """LadybugDB lets a reader in beside its writer, so the preview and the backup
    succeed; the write cannot open the store, and the backup of a correction that
    was never written is not left behind to be listed."""
    pytest.importorskip("ladybug")
    home = tmp_path / "home" / ".amplihack"
    shutil.copytree(ladybug_stores / HOME, home, symlinks=True)
    store = home / "hierarchical_memory" / "ops-agent" / "ladybug_db"
    before = dump_store(store)
    agent = _hold(store, "write", "ladybug")
    try:
        monkeypatch.setattr(correct_write, "READERS_WAIT_S", 0.0)
        args = _args(tmp_path)
        assert main(args) == 3
    finally:
        _release(agent)
    out, err = capsys.readouterr()
    assert "SUPERSEDES" in out  # the preview was printed
    assert err.startswith("error: Store is in use") and "Traceback" not in err
    assert dump_store(store) == before
    assert list_backups(home) == []


@pytest.mark.parametrize("when", ["mid", "committed"])
def test_killed_in_the_write_leaves_before_or_after_and_a_listed_backup(
    reference_stores: Path, capsys, when: str
):
    store = reference_stores / ASKED["store"]
    before = dump_store(store)
    killed = subprocess.run(
        [sys.executable, "-c", KILLER, when, *_args(reference_stores)],
        capture_output=True, text=True, env=_env(), timeout=240,
    )  # fmt: skip
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    [backup] = list_backups(reference_stores / HOME)
    assert backup.action == "correct" and (backup.path / "correction.json").is_file()
    if when == "mid":
        assert dump_store(store) == before
        assert main(["correct", "--undo", str(backup.path)]) == 1
        err = capsys.readouterr().err
        assert "its write never finished" in err and "nothing to undo" in err
        assert "throw away" not in err  # nothing was written since: nothing to lose
        assert dump_store(store) == before
    else:
        _added(before, store)
        assert main(["correct", "--undo", str(backup.path)]) == 0
        nodes, edges = dump_store(store)
        assert nodes == before[0] and sorted(edges) == sorted(before[1])
