"""Pilot tests of Correct: e on a fact's page and E on the node table open the modal;
enter previews, ctrl+s writes after a backup, ctrl+z removes exactly what was
written. Expected rows: the library's oracle (tests/fixtures/
expected_correction_kuzu.json), and the store read plainly after the app closed."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import SIZE, settle
from correct.store_dump import dump_store, store_diff
from textual.widgets import Input, Static

from memexplorer.app.explorer_app import create_app
from memexplorer.app.screens.chain_screen import ChainScreen
from memexplorer.app.screens.correct_modal import CorrectModal
from memexplorer.app.screens.main_screen import MainScreen
from memexplorer.app.screens.node_detail_screen import NodeDetailScreen, NodeRef
from memexplorer.app.widgets.chain_timeline import ChainTimeline
from memexplorer.app.widgets.node_table import TableSource
from memexplorer.operator.backup_records import list_backups

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
ORACLE = json.loads((FIXTURES / "expected_correction_kuzu.json").read_text())["cases"][0]
ASKED = ORACLE["request"]


def _store(home: Path) -> Path:
    return home / "hierarchical_memory" / "ops-agent" / "kuzu_db"


async def _preview(pilot, app) -> CorrectModal:
    modal = app.screen
    assert isinstance(modal, CorrectModal)
    assert modal.query_one("#content", Input).value == "checkout-api runs 7 replicas in production"
    modal.query_one("#content", Input).value = ASKED["content"]
    await pilot.press("enter")
    await settle(pilot)
    assert modal.planned is not None
    return modal


async def test_correct_a_fact_from_its_page_then_see_its_chain(home: Path) -> None:
    store = _store(home)
    before = dump_store(store)
    app = create_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.open_node(NodeRef(store, "SemanticMemory", ASKED["memory_id"]))
        await settle(pilot)
        assert isinstance(app.screen, NodeDetailScreen)
        await pilot.press("e")
        await settle(pilot)
        modal = await _preview(pilot, app)
        shown = str(modal.query_one("#plan", Static).render())
        assert shown.count("SUPERSEDES") == 4 and shown.count("SIMILAR_TO") == 4
        assert "supersedes the old fact" in str(modal.query_one("#summary", Static).render())
        await pilot.press("escape")  # closing before ctrl+s writes nothing
        await settle(pilot)
        assert isinstance(app.screen, NodeDetailScreen) and list_backups(home) == []
        await pilot.press("e")
        await settle(pilot)
        modal = await _preview(pilot, app)
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert modal.outcome.result is not None
        [backup] = list_backups(home)
        assert backup.action == "correct"
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, NodeDetailScreen)
        node = app.screen.detail
        assert node is not None and ("SUPERSEDES", "in") in node.edges
        await pilot.press("c")  # the old fact's chain: the correction is its current value
        await settle(pilot)
        timeline = app.screen.query_one(ChainTimeline)
        assert isinstance(app.screen, ChainScreen)
        newest = timeline.chain.steps[-1]
        assert (newest.memory_id, newest.value, newest.current) == (
            modal.outcome.result.plan.node_id, "8", True)  # fmt: skip
        assert [s.current for s in timeline.chain.steps].count(True) == 1
    found = store_diff(before, dump_store(store))
    assert found["node"] == ORACLE["node"]
    assert sorted(json.dumps(e, sort_keys=True) for e in found["edges"]) == sorted(
        json.dumps(e, sort_keys=True) for e in ORACLE["edges"]
    )


async def test_correct_the_row_under_the_cursor_and_undo(home: Path) -> None:
    store = _store(home)
    before = dump_store(store)
    app = create_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, MainScreen)
        browser = app.session.browsers.get(store)
        info = next(t for t in browser.tables("ops-agent") if t.name == "SemanticMemory")
        screen.table.show(TableSource(browser, "ops-agent", info), focus=True)
        await settle(pilot)
        await pilot.press("slash", *"9972a55b", "enter")
        await settle(pilot)
        assert screen.table.page is not None and screen.table.page.total == 1
        screen.table.focus_rows()
        await pilot.press("E")
        await settle(pilot)
        modal = await _preview(pilot, app)
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert app.session.store_watch.changed() == []  # the app's own write is no news from disk
        await pilot.press("ctrl+z")
        await settle(pilot)
        assert app.session.store_watch.changed() == []
        assert modal.outcome.undone is not None
        assert "Undone" in str(modal.query_one("#summary", Static).render())
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, MainScreen)
    nodes, edges = dump_store(store)
    assert nodes == before[0] and sorted(edges) == sorted(before[1])


async def test_e_on_an_episode_says_only_facts_can_be_corrected(home: Path) -> None:
    store = _store(home)
    app = create_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        browser = app.session.browsers.get(store)
        info = next(t for t in browser.tables("ops-agent") if t.name == "EpisodicMemory")
        screen = app.screen
        screen.table.show(TableSource(browser, "ops-agent", info), focus=True)
        await settle(pilot)
        await pilot.press("E")
        await settle(pilot)
        assert isinstance(app.screen, MainScreen)
        assert any("fact table" in n.message for n in app._notifications)


async def test_a_store_the_app_is_writing_is_not_announced_as_changed(home: Path) -> None:
    """A correction takes a moment (a whole-store backup, then the write): the 2 s look
    at the stores' files must not announce the app's own write as news from disk."""
    import os

    store = _store(home)
    app = create_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.session.writes_under_way.add(store)
        os.utime(store, ns=(1, 1))
        app.check_stores()
        assert app.session.changed_stores == []
        app.session.writes_under_way.discard(store)
        os.utime(store, ns=(2, 2))
        app.check_stores()
        assert app.session.changed_stores == [store]
