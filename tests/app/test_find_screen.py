"""Pilot tests of find anywhere (ctrl+f): results grouped by store and agent, counted
from the reference library's own exports; a result opens its node; more pages;
escape stops a running search and then closes."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

from conftest import SIZE, settle, settle_until
from store_helpers import held_by_another_process
from textual.widgets import DataTable, Input

from memexplorer.app.explorer_app import create_app
from memexplorer.app.screens import find_screen
from memexplorer.app.screens.find_screen import FindScreen, short_key
from memexplorer.app.screens.main_screen import MainScreen
from memexplorer.app.screens.node_detail_screen import NodeDetailScreen
from memexplorer.operator import find as engine_find


def _library_ids(home: Path, agent: str, key: str, text: str) -> list[str]:
    exports = home.parent.parent / "exports" / f"{agent}.export_to_json.json"
    nodes = json.loads(exports.read_text())[key]
    return sorted(n["memory_id"] for n in nodes if any(
        text in (v if isinstance(v, str) else json.dumps(v)).lower()
        for k, v in n.items() if k not in ("memory_id", "confidence")))  # fmt: skip


def _rows(screen: FindScreen) -> list[tuple[str, str, str]]:
    table = screen.query_one("#find-results", DataTable)
    return [tuple(str(cell) for cell in table.get_row_at(i)) for i in range(table.row_count)]


async def _search(pilot, text: str) -> FindScreen:
    await pilot.press("ctrl+f")
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, FindScreen)
    screen.query_one("#find-text", Input).value = text
    await pilot.press("enter")
    await settle_until(pilot, lambda: not screen.searching, "the search")
    return screen


async def test_ctrl_f_finds_every_matching_fact_grouped(home: Path) -> None:
    expected = _library_ids(home, "ops-agent", "semantic_nodes", "replicas")
    assert expected
    app = create_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = await _search(pilot, "Replicas")
        facts = [g for g in screen.groups if g.table.name == "SemanticMemory"
                 and g.agent == "ops-agent" and "hierarchical_memory" in str(g.store)]  # fmt: skip
        assert [g.total for g in facts] == [len(expected)]
        assert sorted(h.key for h in facts[0].hits) == expected
        rows = _rows(screen)
        place = "ops-agent · hierarchical_memory/ops-agent/kuzu_db"
        first = next(i for i, r in enumerate(rows) if r[1] == place)
        assert sum(1 for r in rows if r[1] == place) == 1  # one heading per store and agent
        counts = [r[1] for r in rows[first:] if r[0] == "" and " in " in r[1]]
        assert f"{len(expected)} facts in SemanticMemory" in counts[:2]
        status = str(screen.query_one("#find-status").render())
        assert status.startswith("done: ")
        # Enter on a hit opens its node.
        table = screen.query_one("#find-results", DataTable)
        table.focus()
        row = next(i for i, r in enumerate(rows) if r[0] == short_key(facts[0].hits[0].key))
        table.move_cursor(row=row)
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, NodeDetailScreen)
        assert (app.screen.ref.table, app.screen.ref.key) == (
            "SemanticMemory",
            facts[0].hits[0].key,
        )


async def test_more_pages_of_a_group(home: Path) -> None:
    expected = _library_ids(home, "ops-agent", "semantic_nodes", "service")
    assert len(expected) > engine_find.PAGE_SIZE
    app = create_app(home / "hierarchical_memory" / "ops-agent")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = await _search(pilot, "service")
        [group] = [g for g in screen.groups if g.table.name == "SemanticMemory"]
        assert (group.total, len(group.hits)) == (len(expected), engine_find.PAGE_SIZE)
        table = screen.query_one("#find-results", DataTable)
        more = next(i for i, r in enumerate(_rows(screen)) if r[1].startswith("… "))
        assert _rows(screen)[more][1] == (f"… {len(expected) - engine_find.PAGE_SIZE} more: "
                                          "enter shows them")  # fmt: skip
        table.focus()
        table.move_cursor(row=more)
        await pilot.press("enter")
        await settle_until(pilot, lambda: len(group.hits) == len(expected), "the next page")
        assert sorted(h.key for h in group.hits) == expected


async def test_escape_stops_a_running_search(home: Path, monkeypatch) -> None:
    """The search is held after its first group until the screen cancels it: escape
    must cancel (the engine then stops at its next checkpoint), not close."""
    real = find_screen.find_text
    held = threading.Event()

    def holding(root, text, *, open_store, control, skipped):
        found = real(root, text, open_store=open_store, control=control, skipped=skipped)
        for number, group in enumerate(found):
            yield group
            if number == 0:
                held.set()
                deadline = time.monotonic() + 60
                while not control.cancelled and time.monotonic() < deadline:
                    threading.Event().wait(0.01)

    monkeypatch.setattr(find_screen, "find_text", holding)
    app = create_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+f")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, FindScreen)
        screen.query_one("#find-text", Input).value = "a"
        await pilot.press("enter")
        deadline = time.monotonic() + 60
        while not (held.is_set() and screen.groups):
            assert time.monotonic() < deadline, "the first group never came"
            await pilot.pause(0.02)
        assert screen.searching
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen is screen and not screen.searching
        assert len(screen.groups) == 1
        assert str(screen.query_one("#find-status").render()).startswith("stopped: ")
        await pilot.press("escape")  # nothing runs now: escape closes
        await settle(pilot)
        assert isinstance(app.screen, MainScreen)


async def test_a_locked_store_is_said_not_searched(home: Path) -> None:
    locked = home / "hierarchical_memory" / "research-agent" / "kuzu_db"
    with held_by_another_process(locked, "rw"):
        app = create_app(home)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            screen = await _search(pilot, "replicas")
            status = str(screen.query_one("#find-status").render())
            assert status.endswith(" · 1 store not searched")
            assert [s.store for s in screen.skipped] == [locked]
            assert any("ops-agent" in str(g.store) for g in screen.groups)
