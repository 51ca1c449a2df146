"""Snapshots at 120x36 of the two confirms of writing: switching a store to writing,
and a console write in writing mode (shown, not confirmed)."""

from __future__ import annotations

from conftest import SIZE, keys, settle
from textual.widgets import TextArea

from memexplorer.app.explorer_app import create_app

WRITE = "MATCH (n:SemanticMemory) WHERE n.concept = 'grafana' SET n.confidence = 0.5"


def test_writing_mode_confirm(snap_compare, snapshot_home):
    app = create_app(snapshot_home)
    assert snap_compare(app, terminal_size=SIZE, run_before=keys("w"))


def test_console_write_confirm(snap_compare, snapshot_home):
    app = create_app(snapshot_home)

    async def run(pilot):
        await keys("colon", "f6", "y")(pilot)
        pilot.app.clear_notifications()
        editor = pilot.app.screen.query_one(TextArea)
        editor.text = WRITE
        editor.cursor_blink = False  # the cursor's blink phase is not part of the picture
        editor.focus()
        editor.move_cursor((0, 0))
        await settle(pilot)
        await pilot.press("ctrl+r")
        await settle(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=run)
