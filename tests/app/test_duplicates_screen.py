"""Pilot tests of the duplicates screen on a home holding the planted store
(tests/merge/planted.py): groups at a moved threshold, keep, merge, undo."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import SIZE, settle
from merge.planted import AGENT, build_graph_store, dump
from textual.widgets import DataTable

from memexplorer.app.explorer_app import create_app
from memexplorer.app.screens.duplicates_screen import DuplicatesScreen
from memexplorer.app.screens.help_screen import HelpScreen
from memexplorer.app.screens.main_screen import MainScreen
from memexplorer.app.screens.merge_modal import MergeModal
from memexplorer.storage.exceptions import StoreChangedError
from memexplorer.storage.graph_open import open_graph_store


@pytest.fixture
def planted_home(tmp_path: Path) -> Path:
    home = tmp_path / "home" / ".amplihack"
    build_graph_store(home / "hierarchical_memory" / AGENT / "kuzu_db")
    return home


def _store(home: Path) -> Path:
    return home / "hierarchical_memory" / AGENT / "kuzu_db"


def _column(screen: DuplicatesScreen, table: str, column: int) -> list[str]:
    grid = screen.query_one(table, DataTable)
    return [str(grid.get_row_at(i)[column]) for i in range(grid.row_count)]


async def _open(pilot) -> DuplicatesScreen:
    await settle(pilot)
    await pilot.press("d")  # the cursor is on the planted store, its only agent
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, DuplicatesScreen) and screen.agent == AGENT
    return screen


async def test_threshold_keys_regroup(planted_home):
    app = create_app(planted_home)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open(pilot)
        # 0.85 by default: only the deploy-region group (1.0 and 0.9 pairs).
        assert _column(screen, "#groups", 0) == ["deploy region"]
        assert _column(screen, "#facts", 2) == ["a3", "a2", "a1"]
        assert _column(screen, "#facts", 1) == ["keep", "0.90", "0.90"]
        for _ in range(3):  # 0.80, 0.75, 0.70: b1-b2 (0.8) joins at 0.80
            await pilot.press("left_square_bracket")
            await settle(pilot)
        assert screen.threshold == 0.7
        assert _column(screen, "#groups", 0) == ["Database", "deploy region"]
        await pilot.press("right_square_bracket", "right_square_bracket",
                          "right_square_bracket", "right_square_bracket")  # fmt: skip
        await settle(pilot)
        assert screen.threshold == 0.9
        assert "≥ 0.90" in str(screen.query_one("#dup-title").render())
        await pilot.press("right_square_bracket", "right_square_bracket")
        await settle(pilot)
        assert screen.threshold == 1.0
        assert _column(screen, "#facts", 2) == ["a2", "a1"]
        await pilot.press("f1")
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)


async def test_keep_merge_and_undo(planted_home):
    store = _store(planted_home)
    before = dump(store)
    app = create_app(planted_home)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open(pilot)
        await pilot.press("enter", "down", "k")  # keep a2 instead of the newest, a3
        await settle(pilot)
        assert _column(screen, "#facts", 1) == ["0.90", "keep", "1.00"]
        await pilot.press("m")
        await settle(pilot)
        modal = app.screen
        assert isinstance(modal, MergeModal)
        writes = modal.query_one("#writes", DataTable)
        assert [str(writes.get_row_at(i)[1]) for i in range(writes.row_count)] == [
            "SUPERSEDES a2 → a3", "SUPERSEDES a2 → a1"]  # fmt: skip
        assert dump(store) == before  # the preview writes nothing
        await pilot.press("y")
        await settle(pilot)
        assert app.screen is screen
        merged = dump(store)
        edges = sorted((json.loads(e)["_from"], json.loads(e)["_to"]) for e in merged["SUPERSEDES"])
        assert edges == [("a2", "a1"), ("a2", "a3")]
        assert _column(screen, "#groups", 0) == []  # a1 and a3 are superseded now
        await pilot.press("u")
        await settle(pilot)
        assert dump(store) == before
        assert _column(screen, "#groups", 0) == ["deploy region"]
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, MainScreen)


async def test_undo_after_the_store_changed_is_refused(planted_home):
    store = _store(planted_home)
    app = create_app(planted_home)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open(pilot)
        await pilot.press("m")
        await settle(pilot)
        await pilot.press("y")
        await settle(pilot)
        with open_graph_store(store, read_only=False) as graph:
            graph.execute("MATCH (m:SemanticMemory {memory_id: 'a1'}) SET m.content = 'x'")
        changed = dump(store)
        await pilot.press("u")
        await settle(pilot, failures=(StoreChangedError,))
        assert "ErrorModal" in type(app.screen).__name__
        assert dump(store) == changed
        assert screen.last_merge is None


async def test_escape_in_the_preview_writes_nothing(planted_home):
    store = _store(planted_home)
    before = dump(store)
    app = create_app(planted_home)
    async with app.run_test(size=SIZE) as pilot:
        await _open(pilot)
        await pilot.press("m")
        await settle(pilot)
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, DuplicatesScreen)
    assert dump(store) == before


async def test_merge_and_undo_while_the_store_is_in_writing_mode(planted_home):
    """The app holds the store's write gate in writing mode: the merge and its undo
    enter it again (same process) and the store stays in writing mode."""
    store = _store(planted_home)
    before = dump(store)
    app = create_app(planted_home)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("w", "y")
        await settle(pilot)
        assert app.session.browsers.writing(store)
        screen = await _open(pilot)
        await pilot.press("m")
        await settle(pilot)
        await pilot.press("y")
        await settle(pilot)
        assert screen.last_merge is not None
        assert len(dump(store)["SUPERSEDES"]) == 2
        await pilot.press("u")
        await settle(pilot)
        await pilot.press("escape")
        await settle(pilot)
        assert app.session.browsers.writing(store)
    assert dump(store) == before


async def test_the_backups_screen_takes_a_merge_back(planted_home):
    """A merge made earlier (here from the CLI's engine call) is undone from Backups (b):
    the confirmation says what restoring a merge does."""
    from memexplorer.app.screens.backups_screen import BackupsScreen, ConfirmRestore
    from memexplorer.operator.merge import merge_facts, preview_merge

    store = _store(planted_home)
    before = dump(store)
    merge_facts(preview_merge(store, AGENT, "a3", ["a2", "a1"]), home=planted_home)
    app = create_app(planted_home)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("b")
        await settle(pilot)
        assert isinstance(app.screen, BackupsScreen)
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmRestore)
        text = str(app.screen.query_one("#what").render())
        assert text.startswith("Take back the merge of ") and "remove the edges it added" in text
        await pilot.press("y")
        await settle(pilot)
        assert isinstance(app.screen, BackupsScreen)
    assert dump(store) == before
