"""The app's export never replaces a file without a word (the CLI refuses one without
--force): the first ctrl+s on an existing file says so and writes nothing; a second
one, on the same path, replaces it; a new path asks again."""

from __future__ import annotations

import json

from conftest import SIZE, settle
from textual.widgets import Input, Static

from memexplorer.app.explorer_app import create_app
from memexplorer.app.screens.export_modal import ExportModal
from memexplorer.app.screens.main_screen import MainScreen

YESTERDAY = "yesterday's export, not to be lost\n"


async def test_an_existing_file_is_replaced_only_when_asked_twice(home, tmp_path):
    kept = tmp_path / "kept.json"
    kept.write_text(YESTERDAY)
    other = tmp_path / "other.json"
    other.write_text(YESTERDAY)
    app = create_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("e")
        await settle(pilot)
        modal = app.screen
        assert isinstance(modal, ExportModal)
        modal.query_one("#output", Input).value = str(kept)
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert app.screen is modal  # nothing started: the dialog asks first
        note = str(modal.query_one("#note", Static).render())
        assert "already exists" in note and "ctrl+s again replaces it" in note
        assert kept.read_text() == YESTERDAY
        # Another path is a new question, even after the first was asked.
        modal.query_one("#output", Input).value = str(other)
        await pilot.pause()
        assert "Nothing is written until you export." in str(
            modal.query_one("#note", Static).render()
        )
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert app.screen is modal and other.read_text() == YESTERDAY
        await pilot.press("ctrl+s")  # asked twice on the same path: replaced
        await settle(pilot)
        assert isinstance(app.screen, MainScreen)
    assert kept.read_text() == YESTERDAY
    assert json.loads(other.read_text())["agent_name"] == "ops-agent"


async def test_a_new_file_is_written_at_the_first_ctrl_s(home, tmp_path):
    fresh = tmp_path / "fresh.json"
    app = create_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("e")
        await settle(pilot)
        app.screen.query_one("#output", Input).value = str(fresh)
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert isinstance(app.screen, MainScreen)
    assert json.loads(fresh.read_text())["agent_name"] == "ops-agent"
