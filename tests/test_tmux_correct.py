"""Correct a fact, driven in tmux on the demo home as an operator would: E on the
table's fact, the preview, ctrl+s, the chain with the correction current, ctrl+z.
A step fails when its screen does not show what it should within its deadline."""

from __future__ import annotations

import shutil

import pytest
from test_tmux_tour import Terminal, terminal  # noqa: F401  (the fixture)

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")


def test_correct_a_fact_on_the_demo_home(terminal: Terminal) -> None:  # noqa: F811
    t = terminal
    t.wait_for("read-only", "ops-agent/graph_db", seconds=90)
    t.keys("Down", "Down", "Down", "Enter")
    t.wait_for("SemanticMemory  13")
    t.keys("Down", "Down", "Enter")
    t.wait_for("1–13 of 13")
    t.keys("/")
    t.wait_for("filter: rows whose text contains")
    t.type("12 replicas")
    t.keys("Enter")
    t.wait_for("1–1 of 1 matching '12 replicas'")
    t.keys("E")
    t.wait_for("Correct a fact", "Edit the content")
    t.type("checkout-api runs 10 replicas in production")
    t.keys("Enter")
    t.wait_for("Will write 1 fact and 7 edges and change 2 properties",
               "memexplorer's HierarchicalMemory", "SUPERSEDES the old fact")  # fmt: skip
    t.keys("C-s")
    t.wait_for("Written: ", "undoes it, escape closes")
    t.keys("Escape")
    t.wait_for("SemanticMemory  14")
    t.wait_without("changed on disk", seconds=5)
    t.keys("c")
    t.wait_for("checkout-api replicas  6", "12 → 10  (TRANSITIONED_TO)  current")
    t.keys("Escape")
    t.wait_for("q Query")
    t.keys("E")
    t.wait_for("Correct a fact")
    t.keys("Escape")
    t.wait_for("q Query")
