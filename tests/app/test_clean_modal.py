"""Pilot tests of Clean with Undo and of the Backups screen, on private copies of the
reference stores: the preview's counts, cancel changes nothing (checksums), confirm
removes exactly what was previewed, Undo and Restore bring back equal rows."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from contextlib import closing
from pathlib import Path

from conftest import SIZE, settle
from textual.widgets import DataTable, Input

from memexplorer.app.explorer_app import create_app
from memexplorer.app.operator_session import operator_home
from memexplorer.app.screens.backups_screen import BackupsScreen, ConfirmRestore
from memexplorer.app.screens.clean_modal import CleanModal
from memexplorer.app.screens.main_screen import MainScreen
from memexplorer.app.widgets.node_table import NodeTable, TableSource
from memexplorer.app.widgets.stores_tree import StoresTree
from memexplorer.operator.backup_records import list_backups
from memexplorer.operator.demo import write_demo_home
from memexplorer.operator.transfer import export_agent_store
from memexplorer.storage.graphdb import KuzuStore


def _ops(home: Path) -> Path:
    return home / "hierarchical_memory" / "ops-agent" / "kuzu_db"


def _cognitive(home: Path) -> Path:
    return home / "memory" / "ops-agent" / "kuzu_db"


def _checksum(store: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(store.parent.glob(store.name + "*")):
        if path.is_file():
            digest.update(path.read_bytes())
    return digest.hexdigest()


def _export(home: Path, tmp_path: Path, name: str) -> dict:
    """The agent's memory as the transfer format, without the export's own timestamp."""
    out = tmp_path / f"{name}.json"
    export_agent_store("ops-agent", out, home=home)
    data = json.loads(out.read_text())
    data.pop("exported_at", None)
    return data


def _count(store: Path, table: str, app=None) -> int:
    """Rows in a table, through the app's open store when it runs (one per process)."""
    query = f"MATCH (n:{table}) RETURN count(n)"
    if app is not None:
        return int(app.session.browsers.get(store).graph.rows(query)[0][0])
    with KuzuStore(store, read_only=True) as graph:
        return int(graph.rows(query)[0][0])


async def _open(app, store: Path, agent: str, table: str, text: str = "") -> NodeTable:
    screen = app.screen
    assert isinstance(screen, MainScreen)
    browser = app.session.browsers.get(store)
    info = next(t for t in browser.tables(agent) if t.name == table)
    screen.table.show(TableSource(browser, agent, info), focus=True)
    return screen.table


async def test_clean_row_preview_cancel_confirm_and_undo(home, tmp_path):
    store = _ops(home)
    before, checksum = _export(home, tmp_path, "before"), _checksum(store)
    semantic = _count(store, "SemanticMemory")
    app = create_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        table = await _open(app, store, "ops-agent", "SemanticMemory")
        await settle(pilot)
        await pilot.press("delete")
        await settle(pilot)
        modal = app.screen
        assert isinstance(modal, CleanModal) and modal.preview is not None
        assert modal.preview.counts == {"SemanticMemory": 1}
        assert modal.query_one("#counts", DataTable).row_count == 1 + len(modal.preview.edges)
        key = modal.selection.ids[0]
        assert [r["id"] for r in modal.preview.sample] == [key]
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, MainScreen) and _checksum(store) == checksum
        await pilot.press("delete")
        await settle(pilot)
        edges = app.screen.preview.edge_count
        await pilot.press("y")
        await settle(pilot)
        assert isinstance(app.screen, MainScreen)
        assert table.page is not None and table.page.total == semantic - 1
        [backup] = list_backups(home)
        assert backup.counts["SemanticMemory"] == 1 and not backup.restored
        assert sum(v for k, v in backup.counts.items() if k != "SemanticMemory") == edges
        await pilot.press("u")
        await settle(pilot)
        assert table.page.total == semantic
        assert list_backups(home)[0].restored
        await pilot.press("u")  # only once
        await settle(pilot)
        assert table.page.total == semantic
    assert _export(home, tmp_path, "after") == before


async def test_clean_the_filtered_rows(home, tmp_path):
    store = _ops(home)
    before = _export(home, tmp_path, "before")
    app = create_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        table = await _open(app, store, "ops-agent", "SemanticMemory")
        await settle(pilot)
        total = table.page.total
        await pilot.press("slash", *"checkout", "enter")
        await settle(pilot)
        matching = table.page.total
        assert 1 < matching < total
        await pilot.press("shift+delete")
        await settle(pilot)
        modal = app.screen
        assert isinstance(modal, CleanModal)
        assert modal.preview.counts == {"SemanticMemory": matching}
        await pilot.press("y")
        await settle(pilot)
        assert table.page_query.text == "checkout" and table.page.total == 0
        assert _count(store, "SemanticMemory", app) == total - matching
        await pilot.press("u")
        await settle(pilot)
        assert table.page.total == matching
    assert _export(home, tmp_path, "after") == before


async def test_clean_a_cognitive_row_then_restore_it_from_backups(home):
    store = _cognitive(home)
    app = create_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        browser = app.session.browsers.get(store)
        agent = browser.agents()[0]
        table_name = next(t.name for t in browser.tables(agent) if t.kind == "node" and t.count)
        rows = _count(store, table_name, app)
        await _open(app, store, agent, table_name)
        await settle(pilot)
        await pilot.press("delete")
        await settle(pilot)
        assert app.screen.preview.counts == {table_name: 1}
        await pilot.press("y")
        await settle(pilot)
        assert _count(store, table_name, app) == rows - 1
        await pilot.press("b")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, BackupsScreen)
        listing = screen.query_one("#list", DataTable)
        assert listing.row_count == 1 and str(listing.get_row_at(0)[-1]) == "no"
        await pilot.press("r")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmRestore)
        await pilot.press("escape")  # cancel: nothing written
        await settle(pilot)
        assert _count(store, table_name, app) == rows - 1
        await pilot.press("r", "y")
        await settle(pilot)
        assert _count(store, table_name, app) == rows
        assert str(listing.get_row_at(0)[-1]).startswith("yes")
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, MainScreen)


async def test_nothing_to_clean_or_undo_warns(home):
    app = create_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("u", "shift+delete")
        await settle(pilot)
        assert isinstance(app.screen, MainScreen)
        messages = [n.message for n in app._notifications]
        assert any("Nothing to undo" in m for m in messages)
        assert any("Filter the table first" in m for m in messages)


def test_backups_go_to_the_home_or_the_store_s_home(home, tmp_path):
    assert operator_home(home, _ops(home)) == home
    assert operator_home(_ops(home).parent, _ops(home)) == home
    assert operator_home(tmp_path, None) == tmp_path


async def test_clean_flat_sessions_by_glob_then_undo(tmp_path):
    """On the demo home's flat memory.db: the glob box takes the typing, enter previews
    that glob, y deletes exactly its sessions (after a backup), u brings them back."""
    home = write_demo_home(tmp_path / ".amplihack")
    store = home / "memory.db"

    def sessions() -> list[str]:
        with closing(sqlite3.connect(store)) as db:
            return sorted(row[0] for row in db.execute("SELECT session_id FROM sessions"))

    def entries() -> int:
        with closing(sqlite3.connect(store)) as db:
            return db.execute("SELECT count(*) FROM memory_entries").fetchone()[0]

    before, total = sessions(), entries()
    app = create_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        tree = app.screen.query_one(StoresTree)
        flat = next(n for n in tree.root.children if n.data.entry.path == store)
        tree.move_cursor(flat)
        tree.focus()
        await pilot.press("delete")
        await settle(pilot)
        modal = app.screen
        assert isinstance(modal, CleanModal) and modal.preview is not None
        assert modal.preview.counts["sessions"] == len(before)  # "*" to start with
        assert modal.query_one("#pattern", Input).has_focus  # ready for the glob
        modal.query_one("#pattern", Input).value = ""
        await pilot.press(*"2026-04-03*", "enter")
        await settle(pilot)
        assert modal.preview.counts["sessions"] == 1
        gone = [row["id"] for row in modal.preview.sample]
        assert gone == ["2026-04-03-market-brief"]
        assert sessions() == before  # nothing changed by the previews
        await pilot.press("y")
        await settle(pilot)
        assert sessions() == sorted(set(before) - set(gone))
        assert entries() == total - modal.preview.counts["memory_entries"]
        app.check_stores()  # the app's own write is not news from disk
        assert app.session.changed_stores == []
        await pilot.press("u")
        await settle(pilot)
        app.check_stores()
        assert app.session.changed_stores == []
    assert sessions() == before and entries() == total
