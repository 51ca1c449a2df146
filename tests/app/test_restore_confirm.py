"""The Backups screen's confirm says what a restore will do: a whole-store copy goes
back whole, with the time of the copy and the rows that differ from now (it said
"Write 0 saved rows … rows already there are left as they are")."""

from __future__ import annotations

from conftest import SIZE, settle

from memexplorer.app.explorer_app import create_app
from memexplorer.app.screens.backups_screen import BackupsScreen, ConfirmRestore
from memexplorer.operator.browse import open_browser
from memexplorer.operator.store_backup import write_store_backup

OPS = "hierarchical_memory/ops-agent/kuzu_db"


def _episodes(store) -> int:
    browser = open_browser(store)
    try:
        return browser.graph.scalar("MATCH (e:EpisodicMemory) RETURN count(e)")
    finally:
        browser.close()


async def test_whole_store_restore_confirm_counts_what_it_undoes(home, manifest):
    episodes = manifest["databases"]["home/.amplihack/" + OPS]["library_statistics"]["ops-agent"]
    store = home / OPS
    browser = open_browser(store, writable=True)
    try:
        record = write_store_backup(home, browser, action="console-write", kind="hierarchical")
        browser.graph.execute("MATCH (e:EpisodicMemory) DETACH DELETE e")
    finally:
        browser.close()
    assert _episodes(store) == 0
    app = create_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("b")
        await settle(pilot)
        assert isinstance(app.screen, BackupsScreen)
        row = app.screen.query_one("#list").get_row_at(0)
        assert "whole store" in row
        await pilot.press("enter")
        await settle(pilot)
        confirm = app.screen
        assert isinstance(confirm, ConfirmRestore)
        text = str(confirm.query_one("#what").render())
        assert text.startswith(f"Put back the WHOLE of {store} as it was at ")
        assert f"{record.created_at:%Y-%m-%d %H:%M:%S} UTC" in text
        assert f"EpisodicMemory: 0 go, {episodes['episodic_nodes']} come back" in text
        await pilot.press("y")
        await settle(pilot)
        assert isinstance(app.screen, BackupsScreen)
    assert _episodes(store) == episodes["episodic_nodes"]
