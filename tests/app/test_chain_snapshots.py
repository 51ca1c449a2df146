"""Snapshots at 120x36 of the Chain view on a copy of the reference stores."""

from __future__ import annotations

from conftest import SIZE, keys

from memexplorer.app.explorer_app import create_app


def test_chain_list_and_timeline(snap_compare, snapshot_home):
    # ops-agent's chains, the longest (aws monthly-bill) shown with its current value.
    app = create_app(snapshot_home)
    assert snap_compare(app, terminal_size=SIZE, run_before=keys("c"))


def test_chain_timeline_with_a_step_chosen(snap_compare, snapshot_home):
    # The second chain, the keyboard on its timeline, a superseded step under the cursor.
    app = create_app(snapshot_home)
    assert snap_compare(app, terminal_size=SIZE, run_before=keys("c", "down", "t", "up"))
