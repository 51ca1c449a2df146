"""Merge duplicates, driven in tmux on the demo home as an operator would: d on an
agent, the threshold moved, the preview, y, the chain with the merge, u.
A step fails when its screen does not show what it should within its deadline."""

from __future__ import annotations

import shutil

import pytest
from test_tmux_tour import Terminal, terminal  # noqa: F401  (the fixture)

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")


def test_merge_duplicates_on_the_demo_home(terminal: Terminal) -> None:  # noqa: F811
    t = terminal
    t.wait_for("read-only", "ops-agent/graph_db", seconds=90)
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
    t.wait_for("merged 1 fact into", "no duplicates at similarity ≥ 0.85")
    t.wait_without("changed on disk", seconds=5)
    t.keys("u")
    t.wait_for("merge taken back: 2 edges removed", "alert thresholds  2")
    t.keys("m")
    t.wait_for("Merge duplicates")
    t.keys("y")  # (the first merge's notice may still be up: wait for the title)
    t.wait_for("no duplicates at similarity ≥ 0.85")
    t.keys("Escape")
    # The tree reloads after the write (the agent's tables fold away): c before that
    # lands on a tree being rebuilt.
    t.wait_for("q Query", "▶ ops-agent  22 records")
    t.keys("c")
    t.wait_for("alert thresholds       2")
    t.keys("Down")
    t.wait_for("800 → 500  (TRANSITIONED_TO)  current", "Merged duplicate (similarity 0.86)")
    t.keys("Escape")
    t.wait_for("q Query")
