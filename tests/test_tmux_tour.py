"""The README's tour, driven in tmux as an operator would: a real terminal, real keys.

Pilot tests drive the app from inside; this drives the installed command in a
terminal of 120x36 and reads the screen back with capture-pane, step by step:
stores, a table, a node, its graph, its chain, the query box, the console, a
clean and its undo, an export and its import, an audit, a redaction and its
undo. A step fails when its screen does not show what it should within its
deadline, or when any screen shows a traceback.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")

SIZE = ("120", "36")
STEP_SECONDS = 30.0


class Terminal:
    """One tmux session running memexplorer, on its own socket."""

    def __init__(self, socket: Path) -> None:
        self.socket = socket

    def tmux(self, *args: str) -> str:
        done = subprocess.run(["tmux", "-S", str(self.socket), *args], capture_output=True,
                              text=True, timeout=30)  # fmt: skip
        return done.stdout

    def screen(self) -> str:
        return self.tmux("capture-pane", "-p", "-t", "tour")

    def keys(self, *names: str) -> None:
        for name in names:
            self.tmux("send-keys", "-t", "tour", name)

    def type(self, text: str) -> None:
        self.tmux("send-keys", "-t", "tour", "-l", text)

    def wait_for(self, *texts: str, seconds: float = STEP_SECONDS) -> str:
        """The screen once it shows every one of ``texts``; fails on a traceback."""
        deadline = time.monotonic() + seconds
        screen = ""
        while time.monotonic() < deadline:
            screen = self.screen()
            assert "Traceback" not in screen and "is a bug in memexplorer" not in screen, screen
            if all(text in screen for text in texts):
                return screen
            time.sleep(0.1)
        raise AssertionError(f"the screen never showed {texts!r}; it shows:\n{screen}")

    def wait_without(self, text: str, seconds: float = STEP_SECONDS) -> str:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            screen = self.screen()
            if text not in screen:
                return screen
            time.sleep(0.1)
        raise AssertionError(f"the screen kept showing {text!r}:\n{screen}")


@pytest.fixture
def terminal(tmp_path: Path) -> Iterator[Terminal]:
    home = tmp_path / "home"
    home.mkdir()
    env = {**os.environ, "HOME": str(home), "TERM": "xterm-256color"}
    env.pop("CI", None)  # the app's own behaviour, not the test runner's
    # The pane gives the app its size; a COLUMNS/LINES in the runner's environment
    # (a pytest-xdist worker has 80x24) would override it, as it would in a shell.
    env.pop("COLUMNS", None)
    env.pop("LINES", None)
    socket = tmp_path / "tmux.sock"
    demo = home / ".amplihack"
    command = f"{sys.executable} -m memexplorer demo --home {demo}"
    subprocess.run(
        ["tmux", "-S", str(socket), "new-session", "-d", "-s", "tour", "-x", SIZE[0],
         "-y", SIZE[1], command],
        env=env, check=True, timeout=30,
    )  # fmt: skip
    try:
        yield Terminal(socket)
    finally:
        subprocess.run(["tmux", "-S", str(socket), "kill-server"], capture_output=True,
                       timeout=30)  # fmt: skip


def test_the_readme_tour_on_the_demo_home(terminal: Terminal, tmp_path: Path) -> None:
    t = terminal
    # Stores: every kind of store of the demo home, read-only.
    t.wait_for("read-only", "ops-agent/graph_db", "memory.db", "q Query", seconds=90)
    # A table: ops-agent's facts in its hierarchical store.
    t.keys("Down", "Down", "Down", "Enter")
    t.wait_for("SemanticMemory  13")
    t.keys("Down", "Down", "Enter")
    t.wait_for("1–13 of 13  SemanticMemory of ops-agent")
    # A node, its graph and its chain.
    t.keys("o")
    t.wait_for("properties", "edges", "DERIVES_FROM")
    t.keys("g")
    t.wait_for("depth 1", "around SemanticMemory")
    t.keys("Escape")
    t.wait_for("properties")
    t.keys("c")
    t.wait_for("chains", "current")
    t.keys("Escape")
    t.wait_for("properties")
    t.keys("Escape")
    t.wait_for("1–13 of 13")
    # The query box.
    t.keys("q")
    t.wait_for("ask ops-agent's memory")
    t.type("checkout-api replicas")
    t.keys("Enter")
    t.wait_for("checkout-api runs 12 replicas", "why:")
    t.keys("Escape")
    t.wait_for("1–13 of 13")
    # The console: a read.
    t.keys(":")
    t.wait_for("Cypher · read-only", "ctrl+r runs the query", "No results yet")
    t.keys("C-r")  # the starter query: 20 facts at most, and ops-agent has 13
    t.wait_for("13 rows in")
    t.keys("Escape")
    t.wait_for("1–13 of 13")
    # Clean the row under the cursor, then undo it.
    t.keys("r", "Delete")
    t.wait_for("Will delete 1 row and")
    t.keys("y")
    t.wait_for("1–12 of 12", "Press u to undo")
    t.keys("u")
    t.wait_for("1–13 of 13", "Restored 1 row and")
    # Export the agent, then import the file back (merge: nothing new).
    t.keys("e")
    t.wait_for("Export ops-agent", "●")
    t.keys("C-s")
    t.wait_for("Exported")
    exports = list((tmp_path / "home" / "memexplorer-exports").glob("ops-agent-*.json"))
    assert len(exports) == 1
    t.wait_without("Export ops-agent")
    t.keys("i")
    t.wait_for("Import", "into agent")
    t.type(str(exports[0]))
    t.keys("Enter")  # preview now, as an operator would, whatever the typing raced
    t.wait_for("REPLACE")
    t.keys("C-t")
    t.wait_for("MERGE: 0 new nodes")
    t.keys("C-s")
    t.wait_for("Imported into ops-agent")
    # The audit: redact one finding, then undo.
    t.keys("a")
    t.wait_for("Credential audit", "aws_key")
    t.keys("space", "d")
    t.wait_for("REDACTED")
    t.keys("y")
    t.wait_for("Redacted")
    t.keys("u")
    # The undo's own toast and the audit after it: a toast of the clean's undo,
    # earlier in the tour, may still show "Restored" on a slow machine.
    t.wait_for("Restored", "Credential audit: 9 findings")
    t.keys("Escape")
    t.wait_for("1–13 of 13")
    t.keys("C-q")
    t.wait_without("read-only")
