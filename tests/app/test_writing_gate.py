"""Pilot tests: the app's writing mode holds the store's write gate for as long as the
store stays in writing mode, so another process's write is refused naming the app;
the gate goes when the store is switched back or the app exits; a switch (or a clean)
while another process holds the gate is refused, naming that process."""

from __future__ import annotations

import os

from conftest import SIZE, settle
from gate_helpers import gate_held_elsewhere, run_cli
from store_helpers import checksums

from memexplorer.app.explorer_app import create_app
from memexplorer.app.screens.clean_modal import CleanModal
from memexplorer.app.screens.error_modal import ErrorModal
from memexplorer.app.screens.main_screen import MainScreen
from memexplorer.app.screens.writing_modal import WritingModal
from memexplorer.app.widgets.node_table import TableSource
from memexplorer.operator.write_gate import gate_held, gate_lock_path
from memexplorer.storage.exceptions import StoreBusyError

OPS = "hierarchical_memory/ops-agent/kuzu_db"


async def _press(pilot, *names: str, failures: tuple[type[BaseException], ...] = ()) -> None:
    for name in names:
        await pilot.press(name)
        await settle(pilot, failures)


def _clean(store, home) -> list[str]:
    return ["clean", "*", "--store", str(store), "--home", str(home), "--no-dry-run", "--yes"]


async def test_writing_mode_holds_the_gate_until_switched_back(home, tmp_path):
    store = home / OPS
    app = create_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await _press(pilot, "w", "y")
        assert app.session.browsers.writing(store) and gate_held(store)
        sums = checksums(store)
        refused = run_cli(*_clean(store, tmp_path))
        assert refused.returncode == 3, refused.stderr
        assert f"PID {os.getpid()}" in refused.stderr and "writing mode" in refused.stderr
        assert checksums(store) == sums
        await _press(pilot, "t", "w")  # back to read-only
        assert not app.session.browsers.writing(store)
        assert not gate_held(store) and not gate_lock_path(store).exists()
        await _press(pilot, "t", "w", "y")  # writing again, then the app exits
        assert gate_held(store)
    assert not gate_held(store) and not gate_lock_path(store).exists()
    assert run_cli(*_clean(store, tmp_path)).returncode == 0


async def test_switch_refused_while_another_process_writes(home):
    store = home / OPS
    app = create_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        main = app.screen
        with gate_held_elsewhere(store, "import --merge") as pid:
            await _press(pilot, "w", "y", failures=(StoreBusyError,))
            assert isinstance(app.screen, ErrorModal)
            assert app.screen.error_title == StoreBusyError.title
            assert f"PID {pid}" in app.screen.message and "import --merge" in app.screen.message
            await _press(pilot, "escape")
        assert app.screen is main and not app.session.browsers.writing(store)
        assert app.session.browsers.get(store).graph.read_only
        assert main.sub_title.startswith("read-only")


async def test_clean_confirm_names_the_store_and_is_refused_while_another_writes(home):
    store = home / OPS
    sums = checksums(store)
    app = create_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        main = app.screen
        assert isinstance(main, MainScreen)
        browser = app.session.browsers.get(store)
        info = next(t for t in browser.tables("ops-agent") if t.name == "SemanticMemory")
        main.table.show(TableSource(browser, "ops-agent", info), focus=True)
        await settle(pilot)
        await _press(pilot, "delete")
        modal = app.screen
        assert isinstance(modal, CleanModal)
        assert str(store) in str(modal.summary(modal.preview))
        with gate_held_elsewhere(store, "clean") as pid:
            await _press(pilot, "y", failures=(StoreBusyError,))
            assert isinstance(app.screen, ErrorModal)
            assert app.screen.error_title == StoreBusyError.title
            assert f"PID {pid}" in app.screen.message
            await _press(pilot, "escape")
        assert app.screen is modal and not modal.running
    assert checksums(store) == sums


async def test_read_only_app_refuses_the_switch_before_asking(home, monkeypatch):
    """The session's notice (session_mode.write_action) answers w before any dialog."""
    store = home / OPS
    sums = checksums(store)
    monkeypatch.setenv("MEMEXPLORER_READ_ONLY", "1")
    app = create_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        main = app.screen
        await _press(pilot, "w")
        assert app.screen is main and not isinstance(app.screen, WritingModal)
        notes = [n.message for n in app._notifications]
        assert any("MEMEXPLORER_READ_ONLY=1" in note for note in notes), notes
        assert not app.session.browsers.writing(store)
        assert main.sub_title.startswith("read-only")
    assert checksums(store) == sums
