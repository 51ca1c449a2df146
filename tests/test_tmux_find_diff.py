"""Find anywhere and what changed, driven in tmux on the demo home as an operator
would: ctrl+f and a result opened; an agent's history, a snapshot, a clean, and the
diff from its backup; then the same screens at 80x24. A step fails when its screen
does not show what it should within its deadline, or shows a traceback."""

from __future__ import annotations

import shutil

import pytest
from test_tmux_tour import Terminal, terminal  # noqa: F401  (the fixture)

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")


def test_find_and_what_changed_on_the_demo_home(terminal: Terminal) -> None:  # noqa: F811
    t = terminal
    t.wait_for("read-only", "ops-agent/graph_db", "memory.db", seconds=90)
    # Find anywhere: every store's rows with the text, a result opened.
    t.keys("C-f")
    t.wait_for("find in")
    t.type("replicas")
    t.keys("Enter")
    t.wait_for("done: 16 results in 5 stores", "5 facts in SemanticMemory",
               "2 memories in memory_entries", "1 experience in experiences")  # fmt: skip
    t.keys("C-r", "Down", "Down", "Enter")  # the cognitive store's episode
    t.wait_for("properties", "Scaled checkout-api from 8 to 12 replicas")
    t.keys("Escape")
    t.wait_for("done: 16 results")
    t.keys("Escape")
    t.wait_for("q Query")
    # ops-agent's history: nothing yet; a snapshot; then nothing changed since.
    t.keys("Down", "Down", "Down")
    t.keys("h")
    t.wait_for("history · ops-agent", "no snapshots or backups yet")
    t.keys("s")
    t.wait_for("kept a snapshot", "snapshot · ")
    t.keys("Enter")
    t.wait_for("what changed · ops-agent", "no differences")
    t.keys("Escape")
    t.wait_for("history · ops-agent")
    t.keys("Escape")  # then wait: an escape followed at once by a key reads as alt+key
    t.wait_for("q Query")
    # Clean one fact, then the history's newest point is that clean's backup.
    t.keys("Enter")
    t.wait_for("SemanticMemory  13")
    t.keys("Down", "Down", "Enter")
    t.wait_for("1–13 of 13")
    t.keys("r", "Delete")
    t.wait_for("Will delete 1 row and")
    t.keys("y")
    t.wait_for("1–12 of 12")
    # The tree reloads after the write: h before that lands on a tree being rebuilt.
    t.wait_for("SemanticMemory  12")
    t.keys("t", "h")
    t.wait_for("backup before clean", "snapshot · ")
    t.keys("Enter")
    t.wait_for("what changed · ops-agent", "SemanticMemory   0  1  0")
    # The same diff at 80x24, then find there too.
    t.tmux("resize-window", "-t", "tour", "-x", "80", "-y", "24")
    t.wait_for("SemanticMemory   0  1  0", "esc Close")
    t.keys("Escape")
    t.wait_for("backup before clean")
    t.keys("Escape")
    t.wait_for("q Query")
    t.keys("C-f")
    t.wait_for("find in")
    t.type("pool")
    t.keys("Enter")
    t.wait_for("done: ", "ops-agent · memory.db")
    t.keys("C-q")
    t.wait_without("find in")
