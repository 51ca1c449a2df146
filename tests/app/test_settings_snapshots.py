"""Snapshots at 120x36 of memexplorer's own theme: a table, a node and the graph."""

from __future__ import annotations

from conftest import SIZE, keys

from memexplorer.app.config import Config
from memexplorer.app.explorer_app import create_app

# Expand ops-agent, choose SemanticMemory (its second table).
OPEN_FACTS = ("down", "enter", "down", "down", "enter")
OURS = Config(theme="memexplorer")


def test_theme_on_a_table(snap_compare, snapshot_home):
    app = create_app(snapshot_home, config=OURS)
    assert snap_compare(app, terminal_size=SIZE, run_before=keys(*OPEN_FACTS))


def test_theme_on_a_node(snap_compare, snapshot_home):
    app = create_app(snapshot_home, config=OURS)
    assert snap_compare(app, terminal_size=SIZE, run_before=keys(*OPEN_FACTS, "o"))


def test_theme_on_the_graph(snap_compare, snapshot_home):
    app = create_app(snapshot_home, config=OURS)
    assert snap_compare(app, terminal_size=SIZE, run_before=keys(*OPEN_FACTS, "m"))
