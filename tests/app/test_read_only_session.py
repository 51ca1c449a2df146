"""Pilot tests of a read-only session (MEMEXPLORER_READ_ONLY=1, as ``memexplorer
serve`` sets it): the headers say so, and every write the operator reaches for
says this session is read-only instead of opening its dialog."""

from __future__ import annotations

import pytest
from conftest import SIZE, settle
from store_helpers import checksums

from memexplorer.app.explorer_app import create_app
from memexplorer.app.screens.confirm_modal import ConfirmModal
from memexplorer.app.screens.error_modal import ErrorModal
from memexplorer.app.screens.main_screen import MainScreen
from memexplorer.app.screens.writing_modal import WritingModal
from memexplorer.storage.exceptions import WritesDisabledError


def _notes(app) -> list[str]:
    return [str(n.message) for n in app._notifications]


async def test_every_write_says_the_session_is_read_only(home, monkeypatch):
    monkeypatch.setenv("MEMEXPLORER_READ_ONLY", "1")
    monkeypatch.setenv("TEXTUAL_DRIVER", "textual.drivers.web_driver:WebDriver")
    before = checksums(home)
    app = create_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, MainScreen) and screen.sub_title.startswith("served read-only")
        for key, action in [("w", "Switching a store to writing"), ("delete", "Clean"),
                            ("shift+delete", "Clean"), ("u", "Undo"), ("i", "Import"),
                            ("e", "Export (it writes a file on this machine)")]:  # fmt: skip
            app.clear_notifications()
            await pilot.press(key)
            await settle(pilot)
            assert app.screen is screen, key
            [note] = _notes(app)
            assert note.startswith(f"{action} is not available: this served session is read-only")
            assert "--allow-writes" in note
        await pilot.press("b")  # the backups screen lists; restoring is refused
        await settle(pilot)
        app.clear_notifications()
        await pilot.press("r")
        await settle(pilot)
        assert not isinstance(app.screen, ConfirmModal)
        assert _notes(app)[0].startswith("Restoring a backup is not available")
    assert checksums(home) == before


async def test_outside_a_browser_the_notice_names_the_variable(home, monkeypatch):
    monkeypatch.setenv("MEMEXPLORER_READ_ONLY", "1")
    monkeypatch.delenv("TEXTUAL_DRIVER", raising=False)
    app = create_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.screen.sub_title.startswith("read-only session")
        await pilot.press("w")
        await settle(pilot)
        assert "(MEMEXPLORER_READ_ONLY=1 is set)" in _notes(app)[0]


@pytest.mark.parametrize("value", [None, "0"])
async def test_otherwise_the_switch_asks_as_always(home, monkeypatch, value):
    if value is None:
        monkeypatch.delenv("MEMEXPLORER_READ_ONLY", raising=False)
    else:
        monkeypatch.setenv("MEMEXPLORER_READ_ONLY", value)
    app = create_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.screen.sub_title.startswith("read-only · ")
        await pilot.press("w")
        await settle(pilot)
        assert isinstance(app.screen, WritingModal)


async def test_past_the_app_s_notice_the_engine_s_gate_still_refuses(home, monkeypatch):
    """Not just hidden keys: were the app to offer the switch anyway (its notice
    switched off here), the engine's write gate refuses and nothing changes."""
    monkeypatch.setenv("MEMEXPLORER_READ_ONLY", "1")
    monkeypatch.setattr("memexplorer.app.session_mode.writes_disabled", lambda: False)
    before = checksums(home)
    app = create_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("w")
        await settle(pilot)
        assert isinstance(app.screen, WritingModal)
        await pilot.press("y")
        await settle(pilot, failures=(WritesDisabledError,))
        assert isinstance(app.screen, ErrorModal)
        assert app.screen.error_title == "Writes are disabled"
        assert not app.session.browsers.writing_stores()
    assert checksums(home) == before
