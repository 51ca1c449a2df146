"""Pilot tests of Correct under rough use: an 80x24 terminal, an edit made while the
preview is still being worked out, and a fact whose text holds escape sequences
(shown, never sent to the terminal raw: not in the modal, the fact's page or the
query results)."""

from __future__ import annotations

import threading
from pathlib import Path

from conftest import settle
from textual.widgets import Input, Static

from memexplorer.app.explorer_app import create_app
from memexplorer.app.screens import correct_modal
from memexplorer.app.screens.correct_modal import CorrectModal
from memexplorer.app.screens.node_detail_screen import NodeRef
from memexplorer.app.screens.query_screen import QueryScreen
from memexplorer.cli.main import main
from memexplorer.operator.backup_records import list_backups

#: checkout-api runs 7 replicas in production (temporal_index 3 of 4).
SEVEN = "9972a55b-1911-4f43-95c3-0e10251a1335"
RAW = ("\x1b", "\x07", "\x9b", "\u202e")


def _store(home: Path) -> Path:
    return home / "hierarchical_memory" / "ops-agent" / "kuzu_db"


async def _open_modal(pilot, app, store: Path) -> CorrectModal:
    await settle(pilot)
    app.open_node(NodeRef(store, "SemanticMemory", SEVEN))
    await settle(pilot)
    await pilot.press("e")
    await settle(pilot)
    assert isinstance(app.screen, CorrectModal)
    return app.screen


async def test_every_field_and_the_summary_fit_80_columns(home: Path) -> None:
    app = create_app(home)
    async with app.run_test(size=(80, 24)) as pilot:
        modal = await _open_modal(pilot, app, _store(home))
        modal.query_one("#content", Input).value = "checkout-api runs 8 replicas in production"
        await pilot.press("enter")
        await settle(pilot)
        for name in ("#content", "#concept", "#confidence", "#summary", "#plan-box"):
            region = modal.query_one(name).region
            assert region.width > 0 and region.right <= 80, (name, region)
        summary = modal.query_one("#summary", Static)
        assert "ctrl+s" in str(summary.render())
        assert summary.region.height >= 2  # wrapped, not cut at the right edge


async def test_an_edit_made_while_the_preview_is_worked_out_is_never_written(
    home: Path, monkeypatch
) -> None:
    release = threading.Event()
    plan = correct_modal.plan_correction

    def slow_plan(store, wish):
        assert release.wait(30)
        return plan(store, wish)

    monkeypatch.setattr(correct_modal, "plan_correction", slow_plan)
    app = create_app(home)
    async with app.run_test(size=(120, 36)) as pilot:
        modal = await _open_modal(pilot, app, _store(home))
        content = modal.query_one("#content", Input)
        content.value = "checkout-api runs 8 replicas in production"
        await pilot.press("enter")
        await pilot.pause()
        content.value = "checkout-api runs 9 replicas in production"  # typed meanwhile
        await pilot.pause()
        release.set()
        await settle(pilot)
        assert modal.planned is None
        assert "preview again" in str(modal.query_one("#summary", Static).render())
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert modal.outcome.result is None and list_backups(home) == []
        await pilot.press("enter")  # the preview of what the field holds now
        await settle(pilot)
        assert modal.planned is not None
        assert modal.planned[0].content == "checkout-api runs 9 replicas in production"


def _drawn(app) -> str:
    """Every character the app draws on the terminal now (its segments' text)."""
    lines = app.screen._compositor.render_update(full=True).strips
    return "".join(segment.text for strip in lines for segment in strip)


async def test_escape_sequences_in_a_fact_are_never_drawn_raw(home: Path, capsys) -> None:
    content = "checkout-api runs \x1b[2J8\x1b]0;title\x07 replicas \x9b31m \u202eRTL"
    args = ["correct", "ops-agent", SEVEN, "--content", content, "--home", str(home), "--yes"]
    assert main(args) == 0
    capsys.readouterr()
    app = create_app(home)
    async with app.run_test(size=(120, 36)) as pilot:
        modal = await _open_modal(pilot, app, _store(home))
        modal.query_one("#content", Input).value = content
        await pilot.press("enter")
        await settle(pilot)
        assert modal.planned is not None
        drawn = _drawn(app)
        assert "replicas" in drawn and not any(raw in drawn for raw in RAW)
        await pilot.press("escape")
        await settle(pilot)
        app.push_screen(QueryScreen(app.session, _store(home), "ops-agent"))
        await settle(pilot)
        await pilot.press("slash", *"runs replicas", "enter")
        await settle(pilot)
        drawn = _drawn(app)
        assert "runs [2J8]0;title replicas 31m RTL" in drawn
        assert not any(raw in drawn for raw in RAW)


async def test_a_confidence_outside_0_1_is_refused_in_place(home: Path) -> None:
    app = create_app(home)
    async with app.run_test(size=(120, 36)) as pilot:
        modal = await _open_modal(pilot, app, _store(home))
        for typed in ("abc", "nan", "-1", "2", "inf", ""):
            modal.query_one("#confidence", Input).value = typed
            await pilot.press("ctrl+o")
            await settle(pilot)  # no worker fails: the error modal never opens
            assert app.screen is modal and modal.planned is None
            said = str(modal.query_one("#summary", Static).render())
            assert f"must be a number in [0, 1], not {typed!r}" in said
        modal.query_one("#confidence", Input).value = "1"
        await pilot.press("ctrl+o")
        await settle(pilot)
        assert modal.planned is not None and modal.planned[1].node["confidence"] == 1.0


async def test_empty_content_is_refused_in_place(home: Path) -> None:
    app = create_app(home)
    async with app.run_test(size=(120, 36)) as pilot:
        modal = await _open_modal(pilot, app, _store(home))
        for typed in ("", "   ", "\t"):
            modal.query_one("#content", Input).value = typed
            await pilot.press("ctrl+o")
            await settle(pilot)  # no worker fails: the error modal never opens
            assert app.screen is modal and modal.planned is None
            assert "content is empty" in str(modal.query_one("#summary", Static).render())


async def test_escape_during_the_write_waits_for_it_and_says_so(home: Path, monkeypatch) -> None:
    release = threading.Event()
    write = correct_modal.correct_fact

    def slow_write(plan, wish, *, home):
        assert release.wait(30)
        return write(plan, wish, home=home)

    monkeypatch.setattr(correct_modal, "correct_fact", slow_write)
    app = create_app(home)
    async with app.run_test(size=(120, 36)) as pilot:
        modal = await _open_modal(pilot, app, _store(home))
        modal.query_one("#content", Input).value = "checkout-api runs 8 replicas in production"
        await pilot.press("enter")
        await settle(pilot)
        await pilot.press("ctrl+s", "ctrl+s", "escape")
        await pilot.pause()
        assert app.screen is modal and modal.running
        assert any("Still writing" in n.message for n in app._notifications)
        release.set()
        await settle(pilot)
        assert modal.outcome.result is not None and len(list_backups(home)) == 1
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen is not modal
