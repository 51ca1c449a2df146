"""Merge duplicates, driven in tmux on the demo home as an operator would: d on an
agent, the threshold moved, the preview, y, the chain with the merge, u.
A step fails when its screen does not show what it should within its deadline.
Every key waits for a screen that shows the app is ready for it (no fixed
pauses): keys sent to a screen still loading land somewhere else on a busy
machine. From the first merge on, no screen may say the store "changed on
disk": the app's own write is not a change from outside."""

from __future__ import annotations

import shutil

import pytest
from test_tmux_tour import STEP_SECONDS, Terminal, terminal  # noqa: F401  (the fixture)

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")


def _ours(t: Terminal, *texts: str, seconds: float = STEP_SECONDS) -> None:
    """Wait for ``texts``; the screen must not call the app's own write a change on disk."""
    screen = t.wait_for(*texts, seconds=seconds)
    assert "changed on disk" not in screen, screen


def test_merge_duplicates_on_the_demo_home(terminal: Terminal) -> None:  # noqa: F811
    t = terminal
    # The whole tree first (every store listed): a key sent while it loads moves a
    # cursor that the next store's row then shifts.
    t.wait_for("read-only", "ops-agent/graph_db", "memory.db", "q Query", seconds=90)
    t.keys("Down", "Down", "Down", "Enter")  # ops-agent of ops-agent/graph_db, its tables
    t.wait_for("SUPERSEDES  4", "TRANSITIONED_TO  4")
    t.keys("d")
    t.wait_for("1 group of 1 duplicate at similarity ≥ 0.85", "alert thresholds  2")
    t.keys("]")
    t.wait_for("no duplicates at similarity ≥ 0.90")
    t.keys("[")
    t.wait_for("1 group of 1 duplicate at similarity ≥ 0.85", "exceeds 800 ms")
    t.keys("m")
    t.wait_for("Merge duplicates", "as memexplorer does: 2 edges added, 2 values",
               "TRANSITIONED_TO", "from_value=500, to_value=800")  # fmt: skip
    t.keys("y")
    _ours(t, "merged 1 fact into", "no duplicates at similarity ≥ 0.85")
    t.keys("u")
    _ours(t, "merge taken back: 2 edges removed", "1 group of 1 duplicate at similarity ≥ 0.85",
          "alert thresholds  2")  # fmt: skip
    t.keys("m")
    _ours(t, "Merge duplicates", "as memexplorer does: 2 edges added")
    t.keys("y")  # the first merge's notice may still be up: the title tells them apart
    _ours(t, "no duplicates at similarity ≥ 0.85")
    t.keys("Escape")
    # The tree reloads after the write (the agent's tables fold away): c before that
    # lands on a tree being rebuilt.
    _ours(t, "q Query", "▶ ops-agent  22 records")
    t.keys("c")
    _ours(t, "alert thresholds       2")
    t.keys("Down")
    _ours(t, "800 → 500  (TRANSITIONED_TO)  current", "Merged duplicate (similarity 0.86)")
    t.keys("Escape")
    _ours(t, "q Query")
