"""Pilot tests of the query box's retrieval profiles: the profile in the title, p to
switch it (remembered per store), the missed facts with the step that cut each, and
w walking a fact through the steps."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import SIZE, settle
from test_query_screen import STORES, ask, open_query, use_profile

from memexplorer.app.explorer_app import create_app
from memexplorer.app.profile_choices import ProfileChoices
from memexplorer.app.screens.query_screen import QueryScreen
from memexplorer.app.screens.why_not_screen import WhyNotScreen
from memexplorer.app.widgets.missed_list import MissedList


@pytest.fixture(autouse=True)
def data_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "xdg-data"
    monkeypatch.setenv("XDG_DATA_HOME", str(folder))
    return folder


def ops_store(home: Path) -> Path:
    return home / STORES["ops-agent"].split("/", 2)[2]


async def test_profile_shows_switches_and_is_remembered_per_store(home):
    store = ops_store(home)
    app = create_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = await open_query(pilot, "ops-agent", store)
        assert screen.profile == "library"
        assert screen.sub_title.startswith("profile library · ")
        results = await ask(pilot, screen, "checkout-api replicas")
        assert results.border_title.startswith("library: ")
        await use_profile(pilot, screen, "amplihack-rs")
        assert screen.sub_title.startswith("profile amplihack-rs · ")
        assert screen.request.profile == "amplihack-rs"
        assert results.border_title.startswith("amplihack-rs: ")
        assert "amplihack-rs · max 20 nodes" in str(screen.query_one("#settings").render())
    assert ProfileChoices().get(store) == "amplihack-rs"
    assert ProfileChoices().get(home / STORES["support-bot"].split("/", 2)[2]) == "library"
    again = create_app(home)
    async with again.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = await open_query(pilot, "ops-agent", store)
        assert screen.profile == "amplihack-rs"
        other = home / STORES["support-bot"].split("/", 2)[2]
        await pilot.press("escape")
        await settle(pilot)
        screen = await open_query(pilot, "support-bot", other)
        assert screen.profile == "library"


async def test_missed_facts_say_which_step_cut_them(home):
    app = create_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = await open_query(pilot, "ops-agent", ops_store(home))
        results = await ask(pilot, screen, "Who owns checkout-api?")
        assert results.subgraph.nodes == []  # the library keeps the question mark
        missed = screen.query_one(MissedList)
        assert missed.option_count == 20  # ranked's whole answer
        assert missed.border_title == "found by ranked, not by library · 20 facts"
        lines = [str(missed.get_option_at_index(i).prompt) for i in range(missed.option_count)]
        assert all("\n   cut by " in line for line in lines)
        punctuation = "cut by keywords: keyword 'checkout-api?' cannot match because of attached"
        assert sum(punctuation in line for line in lines) >= 5
        await use_profile(pilot, screen, "ranked")
        assert missed.option_count == 0 and "ranked is the reference" in missed.border_title


async def test_w_walks_a_missed_fact_and_a_kept_one(home):
    app = create_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = await open_query(pilot, "ops-agent", ops_store(home))
        await ask(pilot, screen, "checkout-api replicas?")
        assert screen.results.subgraph.nodes
        await pilot.press("w")  # the cursor is on the first result
        await settle(pilot)
        why = app.screen
        assert isinstance(why, WhyNotScreen) and why.kept
        text = str(why.query_one("#steps").render())
        assert "library: in the agent's result" in text
        assert "✓ keywords: matches keyword(s) checkout-api" in text
        assert "✓ rank and trim: ranked 1 of" in text
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, QueryScreen)
        missed = screen.query_one(MissedList)
        assert missed.option_count > 0
        await pilot.press("m")
        assert missed.has_focus
        missed.highlighted = 0
        await pilot.press("w")
        await settle(pilot)
        why = app.screen
        assert isinstance(why, WhyNotScreen) and not why.kept
        assert why.fact.node_id == missed.cursor_id()
        text = str(why.query_one("#steps").render())
        assert "left out of the agent's result" in text and "✗ " in text
        assert [s.cut for s in why.steps].count(True) >= 1


async def test_nothing_missed_is_said_not_left_blank(home):
    app = create_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = await open_query(pilot, "ops-agent", ops_store(home))
        await ask(pilot, screen, "payments team")
        missed = screen.query_one(MissedList)
        assert missed.border_title == "found by ranked, not by library · 0 facts"
        assert missed.option_count == 1 and missed.get_option_at_index(0).disabled
        assert "Nothing missed: library returned every fact ranked finds" in str(
            missed.get_option_at_index(0).prompt
        )
        assert missed.cursor_id() is None
