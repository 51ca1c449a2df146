"""Pilot tests of the duplicates screen's search (a worker that shows its progress,
stops on escape, and starts again when the threshold moves) and of choosing the
facts a merge takes (space). The planted store's groups are in tests/merge/planted.py."""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import SIZE, settle
from merge.planted import AGENT, build_graph_store, dump
from textual.pilot import Pilot
from textual.widgets import DataTable
from textual.worker import WorkerState

from memexplorer.app.explorer_app import create_app
from memexplorer.app.screens.duplicates_screen import DuplicatesScreen
from memexplorer.app.screens.duplicates_search import DuplicatesSearch
from memexplorer.app.screens.main_screen import MainScreen
from memexplorer.app.screens.merge_modal import MergeModal
from memexplorer.operator import duplicates
from memexplorer.operator.duplicates_grouping import DuplicateFact
from memexplorer.storage.progress import OperationCancelled

WORDS = [f"word{i}" for i in range(32)]


@pytest.fixture
def planted_home(tmp_path: Path) -> Path:
    home = tmp_path / "home" / ".amplihack"
    build_graph_store(home / "hierarchical_memory" / AGENT / "kuzu_db")
    return home


class Big:
    """While ``on``, each search also compares 8,000 facts of one concept, again and
    again (the real grouping, with the search's own control) until it is cancelled:
    a search that runs until stopped, however fast the machine. ``stopped`` holds
    the moment the engine gave up (OperationCancelled), for the test to time."""

    def __init__(self) -> None:
        self.on = True
        self.stopped: list[float] = []


@pytest.fixture
def big(monkeypatch: pytest.MonkeyPatch) -> Big:
    rng = random.Random(7)
    extra = [
        DuplicateFact(f"x{i}", "service config", " ".join(rng.sample(WORDS, 6)) + f" v{i % 50}",
                      (rng.choice(WORDS[:5]),), 0.8, f"2025-01-01T{i:08d}")
        for i in range(8000)
    ]  # fmt: skip
    state = Big()
    group = duplicates.group_duplicates

    def grouped(facts, threshold, control=None):  # type: ignore[no-untyped-def]
        facts = list(facts)
        deadline = time.monotonic() + 120  # a test that never stops it fails, not hangs
        try:
            while state.on and time.monotonic() < deadline:
                group(facts + extra, threshold, control)
        except OperationCancelled:
            state.stopped.append(time.monotonic())
            raise
        return group(facts, threshold, control)

    monkeypatch.setattr(duplicates, "group_duplicates", grouped)
    return state


async def _wait(pilot: Pilot, condition: Callable[[], bool], what: str, seconds: float = 30):
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} did not happen within {seconds:.0f} s")
        await pilot.pause(0.02)


TITLES: list[str] = []


@pytest.fixture(autouse=True)
def _titles(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every title the screen shows, for the message of a wait that failed."""
    TITLES.clear()
    show = DuplicatesSearch._title

    def shown(self: DuplicatesSearch, text: str) -> None:
        TITLES.append(text)
        show(self, text)

    monkeypatch.setattr(DuplicatesSearch, "_title", shown)


def _title(screen: DuplicatesScreen) -> str:
    return str(screen.query_one("#dup-title").render())


def _column(screen: DuplicatesScreen, table: str, column: int) -> list[str]:
    grid = screen.query_one(table, DataTable)
    return [str(grid.get_row_at(i)[column]) for i in range(grid.row_count)]


def _searches(app) -> list:  # type: ignore[no-untyped-def]
    return [w for w in app.workers if w.group == "duplicates-find"]


async def _open_while_searching(pilot: Pilot) -> DuplicatesScreen:
    await settle(pilot)
    await pilot.press("d")
    await _wait(pilot, lambda: isinstance(pilot.app.screen, DuplicatesScreen), "the screen")
    screen = pilot.app.screen
    assert isinstance(screen, DuplicatesScreen)
    await _wait(
        pilot,
        lambda: "pairs scored" in _title(screen) and screen.searching,
        f"progress on screen (titles shown: {TITLES})",
    )
    return screen


async def test_escape_stops_a_search_at_once_and_the_screen_stays(planted_home, big: Big):
    app = create_app(planted_home)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open_while_searching(pilot)
        assert "facts" in _title(screen) and "(escape stops)" in _title(screen)
        control = screen.control
        assert control is not None
        cancelled: list[float] = []
        cancel = control.cancel
        control.cancel = lambda: (cancelled.append(time.monotonic()), cancel())[1]  # type: ignore[method-assign]
        await pilot.press("escape")
        await _wait(pilot, lambda: not any(w.is_running for w in _searches(app)), "the stop")
        assert control.cancelled and len(cancelled) == 1 and len(big.stopped) == 1
        assert big.stopped[0] - cancelled[0] < 0.5  # the engine stopped within half a second
        assert app.screen is screen and "stopped" in _title(screen)
        assert all(w.state == WorkerState.SUCCESS for w in _searches(app))  # no error modal
        big.on = False
        await pilot.press("r")  # the screen still works: search again
        await settle(pilot)
        assert _column(screen, "#groups", 0) == ["deploy region"]
        await pilot.press("escape")  # nothing runs: escape closes
        await settle(pilot)
        assert isinstance(app.screen, MainScreen)


async def test_a_new_threshold_stops_the_search_and_starts_another(planted_home, big: Big):
    app = create_app(planted_home)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open_while_searching(pilot)
        first = screen.control
        await pilot.press("left_square_bracket")  # 0.80: the first search is stopped
        assert first is not None and first.cancelled and len(big.stopped) == 1
        assert screen.threshold == 0.8 and screen.control is not first
        big.on = False
        await pilot.press("left_square_bracket", "left_square_bracket")  # 0.70
        await settle(pilot)
        assert screen.threshold == 0.7
        assert _column(screen, "#groups", 0) == ["Database", "deploy region"]
        assert "≥ 0.70" in _title(screen)


async def test_space_leaves_a_fact_out_of_the_merge(planted_home):
    store = planted_home / "hierarchical_memory" / AGENT / "kuzu_db"
    app = create_app(planted_home)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("d")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, DuplicatesScreen)
        await pilot.press("enter", "space")  # on a3, the fact kept: it stays in
        await settle(pilot)
        assert _column(screen, "#facts", 0) == ["[x]", "[x]", "[x]"]
        assert "kept fact stays" in str(list(app._notifications)[-1].message)
        await pilot.press("down", "space")  # a2 out
        await settle(pilot)
        assert _column(screen, "#facts", 0) == ["[x]", "[ ]", "[x]"]
        assert _column(screen, "#facts", 2) == ["a3", "a2", "a1"]
        await pilot.press("m")
        await settle(pilot)
        modal = app.screen
        assert isinstance(modal, MergeModal)
        writes = modal.query_one("#writes", DataTable)
        assert [str(writes.get_row_at(i)[1]) for i in range(writes.row_count)] == [
            "SUPERSEDES a3 → a1"]  # fmt: skip
        await pilot.press("y")
        await settle(pilot)
        edges = [(json.loads(e)["_from"], json.loads(e)["_to"]) for e in dump(store)["SUPERSEDES"]]
        assert edges == [("a3", "a1")]
        # a2 is still current and scores 0.90 with a3: the group is found again.
        assert _column(screen, "#groups", 0) == ["deploy region"]
        assert _column(screen, "#facts", 2) == ["a3", "a2"]
        await pilot.press("enter", "down", "space", "m")  # only the kept fact left
        await settle(pilot)
        assert app.screen is screen
        assert "at least two facts" in str(list(app._notifications)[-1].message)
        assert len(dump(store)["SUPERSEDES"]) == 1
