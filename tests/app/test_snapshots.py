"""Snapshots at 120x36 of every screen, on a copy of the reference stores at a fixed path."""

from __future__ import annotations

from conftest import SIZE, keys, settle, settle_until
from textual_fastdatatable import DataTable

from memexplorer.app.explorer_app import create_app
from memexplorer.app.widgets.node_table import NodeTable
from memexplorer.storage.exceptions import StoreNotFoundError

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

    async def run_before(pilot) -> None:
        await keys(*OPEN_FACTS, *["right"] * 6)(pilot)
        table = app.screen.query_one(NodeTable).query_one(DataTable)
        # The table scrolls its cursor into view after a refresh; a modal pushed
        # before that leaves it unscrolled behind the modal (seen under load).
        await settle_until(pilot, lambda: table.scroll_x > 0, "scrolling to the tags column")
        await pilot.press("v")
        await settle(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


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
