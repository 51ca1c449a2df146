"""Snapshots at 120x36 of find anywhere and of the diff screen, on the run's copy of
the reference stores (paths shown as the fixed snapshot path)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

from conftest import SIZE, keys, settle
from diff_exports import AFTER, BEFORE
from textual.widgets import Input

from memexplorer.app.explorer_app import create_app
from memexplorer.app.screens.diff_screen import DiffScreen
from memexplorer.operator.snapshots import take_snapshot


def test_find_results(snap_compare, snapshot_home):
    # ctrl+f, "replicas", enter: every store's facts, episodes and experiences with it.
    app = create_app(snapshot_home)

    async def run_before(pilot) -> None:
        await keys("ctrl+f")(pilot)
        app.screen.query_one(Input).cursor_blink = False  # its phase is not the picture
        await keys(*"replicas", "enter")(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_diff_of_two_exports(snap_compare, snapshot_home):
    # Hand-written exports: facts added, removed, changed (by id and by concept).
    folder: Path = snapshot_home.parent.parent / "diff"
    folder.mkdir(exist_ok=True)
    a, b = folder / "before.json", folder / "after.json"
    a.write_text(json.dumps(BEFORE))
    b.write_text(json.dumps(AFTER))
    app = create_app(snapshot_home)

    async def run_before(pilot) -> None:
        await settle(pilot)
        app.push_screen(DiffScreen(app.session, a, b, agent=None, home=None))
        await settle(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_history_of_an_agent(snap_compare, snapshot_home):
    # h on ops-agent: two snapshots kept at fixed times, newest first.
    for day in (20, 24):
        take_snapshot("ops-agent", home=snapshot_home, now=datetime(2026, 11, day, 8, tzinfo=UTC))
    app = create_app(snapshot_home)
    assert snap_compare(app, terminal_size=SIZE, run_before=keys("h"))
