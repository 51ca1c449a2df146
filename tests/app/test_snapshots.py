"""Snapshots at 120x36 of every screen, on a copy of the reference stores at a fixed path."""

from __future__ import annotations

from conftest import SIZE, keys

from memexplorer.app import create_app
from memexplorer.engine.exceptions import StoreNotFoundError

# Expand ops-agent, choose SemanticMemory (its second table).
OPEN_FACTS = ("down", "enter", "down", "down", "enter")


def test_main_screen_with_stores(snap_compare, snapshot_home):
    assert snap_compare(create_app(snapshot_home), terminal_size=SIZE, run_before=keys())


def test_main_screen_with_a_table(snap_compare, snapshot_home):
    app = create_app(snapshot_home)
    assert snap_compare(app, terminal_size=SIZE, run_before=keys(*OPEN_FACTS))


def test_node_detail(snap_compare, snapshot_home):
    app = create_app(snapshot_home)
    assert snap_compare(app, terminal_size=SIZE, run_before=keys(*OPEN_FACTS, "o"))


def test_value_modal(snap_compare, snapshot_home):
    app = create_app(snapshot_home)
    press = (*OPEN_FACTS, "right", "right", "right", "right", "right", "right", "v")
    assert snap_compare(app, terminal_size=SIZE, run_before=keys(*press))


def test_help_screen(snap_compare, snapshot_home):
    assert snap_compare(create_app(snapshot_home), terminal_size=SIZE, run_before=keys("f1"))


def test_error_modal(snap_compare, snapshot_home):
    missing = snapshot_home.parent / "no-such-folder"
    app = create_app(missing)
    assert snap_compare(app, terminal_size=SIZE, run_before=keys(failures=(StoreNotFoundError,)))


def test_main_screen_with_a_table_at_80x24(snap_compare, snapshot_home):
    """At 80×24 the stores pane leaves the table at least three columns (it was a fixed
    50 columns, leaving the table about one)."""
    app = create_app(snapshot_home)
    assert snap_compare(app, terminal_size=(80, 24), run_before=keys(*OPEN_FACTS))


def test_main_screen_with_a_table_at_200x50(snap_compare, snapshot_home):
    app = create_app(snapshot_home)
    assert snap_compare(app, terminal_size=(200, 50), run_before=keys(*OPEN_FACTS))
