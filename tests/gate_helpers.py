"""A write gate held by another process, for tests of two writers at once.

The holder enters ``write_gate`` in its own Python process, says "held" and its
PID, and keeps the gate until its stdin closes (or it is killed), so a test
controls exactly when the second writer runs: no racing of timings.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

HOLDER = (
    "import os, sys\n"
    "from memexplorer.operator.write_gate import write_gate\n"
    "with write_gate(sys.argv[1], action=sys.argv[2]):\n"
    "    print('held', os.getpid(), flush=True)\n"
    "    sys.stdin.read()\n"
)


def start_holder(store: Path, action: str = "test-hold") -> subprocess.Popen[str]:
    """A process holding ``store``'s write gate until its stdin closes."""
    env = {key: value for key, value in os.environ.items() if key != "MEMEXPLORER_READ_ONLY"}
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(store), action],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True, env=env,
    )  # fmt: skip
    assert holder.stdout is not None
    line = holder.stdout.readline().split()
    if line[:1] != ["held"]:
        holder.kill()
        _, err = holder.communicate()
        raise AssertionError(f"the holder did not take the gate: {line} {err}")
    assert int(line[1]) == holder.pid
    return holder


@contextmanager
def gate_held_elsewhere(store: Path, action: str = "test-hold") -> Iterator[int]:
    """Another process holds ``store``'s write gate in the block; yields its PID."""
    holder = start_holder(store, action)
    try:
        yield holder.pid
    finally:
        holder.communicate("")


def kill_holder(holder: subprocess.Popen[str]) -> None:
    """SIGKILL the holder (no cleanup runs) and reap it."""
    os.kill(holder.pid, signal.SIGKILL)
    holder.communicate()
    assert holder.returncode == -signal.SIGKILL


def run_cli(*args: str, read_only: bool = False) -> subprocess.CompletedProcess[str]:
    """``memexplorer ARGS`` in its own process (MEMEXPLORER_READ_ONLY=1 if asked)."""
    env = {key: value for key, value in os.environ.items() if key != "MEMEXPLORER_READ_ONLY"}
    if read_only:
        env["MEMEXPLORER_READ_ONLY"] = "1"
    return subprocess.run(
        [sys.executable, "-m", "memexplorer", *args],
        capture_output=True, text=True, env=env, timeout=300, stdin=subprocess.DEVNULL,
    )  # fmt: skip


def start_script(script: str, *args: str) -> subprocess.Popen[str]:
    """A Python ``script`` in its own process that prints "ready" and then waits on
    stdin; returns once it said "ready" (it failed if it said anything else)."""
    env = {key: value for key, value in os.environ.items() if key != "MEMEXPLORER_READ_ONLY"}
    process = subprocess.Popen(
        [sys.executable, "-c", script, *args],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True, env=env,
    )  # fmt: skip
    assert process.stdout is not None
    line = process.stdout.readline().strip()
    if line != "ready":
        process.kill()
        _, err = process.communicate()
        raise AssertionError(f"the script did not get ready: {line!r} {err}")
    return process
