"""The Backups screen names each backup's store so two stores never read the same:
under the home by its place there, elsewhere by its whole path (both read
"hierarchical_memory/ops/kuzu_db" before, and a restore of the wrong one was a
keypress away)."""

from __future__ import annotations

from pathlib import Path

from conftest import SIZE, settle
from merge.planted import AGENT, build_graph_store
from textual.widgets import DataTable

from memexplorer.app.explorer_app import create_app
from memexplorer.app.screens.backups_screen import BackupsScreen
from memexplorer.operator.browse import open_browser
from memexplorer.operator.store_backup import write_store_backup

PLACE = Path("hierarchical_memory") / AGENT / "kuzu_db"


def _back_up(home: Path, store: Path) -> None:
    browser = open_browser(store, writable=True)
    try:
        write_store_backup(home, browser, action="console-write", kind="hierarchical")
    finally:
        browser.close()


async def test_a_store_outside_the_home_is_named_by_its_whole_path(tmp_path: Path):
    home = tmp_path / "home" / ".amplihack"
    inside = build_graph_store(home / PLACE)
    outside = build_graph_store(tmp_path / "elsewhere" / PLACE)
    _back_up(home, inside)
    _back_up(home, outside)
    app = create_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("b")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, BackupsScreen)
        listing = screen.query_one("#list", DataTable)
        shown = [str(listing.get_row_at(row)[3]) for row in range(listing.row_count)]
    assert shown == [str(PLACE), str(outside)]
