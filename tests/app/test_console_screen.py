"""Pilot tests of the query console: run, cap, values, history, stop, writes refused."""

from __future__ import annotations

import os
import re
import time

from conftest import SIZE, settle
from store_helpers import checksums
from textual.widgets import TextArea

from memexplorer.app.explorer_app import create_app
from memexplorer.app.screens.console_screen import ConsoleScreen
from memexplorer.app.screens.error_modal import ErrorModal
from memexplorer.app.screens.help_screen import HelpScreen
from memexplorer.app.screens.value_modal import ValueModal

OPS = "hierarchical_memory/ops-agent/kuzu_db"


async def _console(pilot) -> ConsoleScreen:
    await settle(pilot)
    await pilot.press("colon")  # the tree's cursor is on the first store: ops-agent
    await settle(pilot)
    assert isinstance(pilot.app.screen, ConsoleScreen)
    return pilot.app.screen


async def _run(pilot, screen: ConsoleScreen, text: str) -> None:
    screen.query_one(TextArea).text = text
    await pilot.press("ctrl+r")
    await settle(pilot)


async def test_run_a_query_and_read_a_value(home):
    app = create_app(home)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _console(pilot)
        assert screen.store == home / OPS
        await _run(pilot, screen, "MATCH (n:SemanticMemory) RETURN count(n) AS facts")
        assert screen.result.data.to_pylist() == [{"facts": 84}]
        assert str(screen.query_one("#status").render()).startswith("1 row in ")
        await _run(pilot, screen, "MATCH (n:SemanticMemory) RETURN n.metadata, n.concept")
        assert screen.result.data.num_rows == 84
        screen.query_one("#grid").focus()
        await pilot.press("f4")
        await settle(pilot)
        assert isinstance(app.screen, ValueModal) and app.screen.is_json
        await pilot.press("escape")
        await settle(pilot)
        await pilot.press("ctrl+e", "ctrl+up")
        assert screen.query_one(TextArea).text.startswith("MATCH (n:SemanticMemory) RETURN count")
        await pilot.press("ctrl+down")
        assert "n.metadata" in screen.query_one(TextArea).text


async def test_ctrl_a_selects_the_query_so_typing_replaces_it(home):
    """ctrl+a went to the line's start (TextArea's own key), so what the operator typed
    next was added to the old query; help lists the key."""
    app = create_app(home)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _console(pilot)
        screen.query_one(TextArea).text = "MATCH (n) RETURN n\nLIMIT 3"
        screen.query_one("#results").focus()  # from anywhere on the screen
        await pilot.press("ctrl+a")
        await settle(pilot)
        await pilot.press(*"RETURN 1")
        await settle(pilot)
        assert screen.query_one(TextArea).text == "RETURN 1"
        await pilot.press("f1")
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)
        assert re.search(r"`ctrl\+a` \| Select all \| Select the whole query", app.screen.markdown)


async def test_writes_are_refused_while_read_only(home):
    before = checksums(home / OPS)
    app = create_app(home)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _console(pilot)
        await _run(pilot, screen, "MATCH (n:SemanticMemory) DETACH DELETE n")
        assert isinstance(app.screen, ErrorModal)
        assert "read-only" in app.screen.message and "Press w" in app.screen.message
        await pilot.press("escape")
        await settle(pilot)
        assert str(screen.query_one("#status").render()).startswith("refused")
    assert checksums(home / OPS) == before


async def test_escape_closes_when_idle(home):
    app = create_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await _console(pilot)
        await pilot.press("escape")
        await settle(pilot)
        assert not isinstance(app.screen, ConsoleScreen)


def _rss_mb() -> float:
    with open(f"/proc/{os.getpid()}/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 1e6


async def test_escape_stops_a_runaway_query_and_the_switch_works_after(home):
    """A query that would run for hours: escape used to say "stopped" while kuzu went
    on (`UNWIND range(1,2000000000)` grew the app to 8.6 GB) and the next writing
    switch hung. This one only counts, in constant memory, so the console's memory
    ceiling (its own test, engine/test_console_stop.py) can never stop it first."""
    app = create_app(home)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _console(pilot)
        await _run(pilot, screen, "MATCH (n:SemanticMemory) RETURN count(n) AS facts")
        assert screen.result is not None
        before = _rss_mb()
        screen.query_one(TextArea).text = (
            "MATCH (a:SemanticMemory), (b:SemanticMemory), (c:SemanticMemory), "
            "(d:SemanticMemory), (e:SemanticMemory) WHERE a.confidence + b.confidence "
            "+ c.confidence + d.confidence + e.confidence < 0 RETURN count(*)"
        )
        await pilot.press("ctrl+r")
        deadline = time.monotonic() + 15
        while screen.query_process is None or screen.query_process._process is None:
            assert time.monotonic() < deadline, "the query's process never started"
            await pilot.pause(0.05)
        await pilot.pause(0.5)  # it runs in the child meanwhile
        started = time.monotonic()
        await pilot.press("escape")
        await settle(pilot)
        assert time.monotonic() - started < 1.0
        assert str(screen.query_one("#status").render()) == "stopped"
        assert screen.result is None and not screen.query("#grid")  # no stale rows under it
        assert _rss_mb() < before * 1.5
        await pilot.press("escape")  # idle now: closes the console
        await settle(pilot)
        assert not isinstance(app.screen, ConsoleScreen)
        await pilot.press("w", "y")
        await settle(pilot)
        assert app.session.browsers.writing(home / OPS)
