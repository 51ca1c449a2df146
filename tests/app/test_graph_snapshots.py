"""Snapshots at 120x36 of the graph view on the reference stores."""

from __future__ import annotations

from conftest import SIZE, keys
from test_snapshots import OPEN_FACTS

from memexplorer.app.explorer_app import create_app


def test_graph_depth_one(snap_compare, snapshot_home):
    app = create_app(snapshot_home)
    assert snap_compare(app, terminal_size=SIZE, run_before=keys(*OPEN_FACTS, "m"))


def test_graph_depth_two_with_a_selection(snap_compare, snapshot_home):
    app = create_app(snapshot_home)
    press = (*OPEN_FACTS, "m", "d", "tab", "tab")
    assert snap_compare(app, terminal_size=SIZE, run_before=keys(*press))


def test_graph_from_a_node_expanded(snap_compare, snapshot_home):
    app = create_app(snapshot_home)
    press = (*OPEN_FACTS, "o", "g", "tab", "space")
    assert snap_compare(app, terminal_size=SIZE, run_before=keys(*press))
