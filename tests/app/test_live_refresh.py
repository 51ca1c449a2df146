"""Pilot tests: a store written on disk while the app shows it is noticed (stat
calls on an interval) and R reopens it: new counts, the open table at its page."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

import kuzu
from conftest import SIZE, settle
from textual.pilot import Pilot
from textual.widgets import Static

from memexplorer.app.explorer_app import MemExplorerApp, create_app
from memexplorer.app.widgets.node_table import NodeTable
from memexplorer.app.widgets.stores_tree import AgentItem, StoreItem, StoresTree, TableItem


def _notices(app) -> list[str]:
    return [notification.message for notification in app._notifications]


def _store_node(app, path: Path):
    tree = app.screen.query_one(StoresTree)
    return next(
        node
        for node in tree.root.children
        if isinstance(node.data, StoreItem) and node.data.entry.path == path
    )


async def _open_table(pilot: Pilot, store: Path, name: str) -> NodeTable:
    tree = pilot.app.screen.query_one(StoresTree)
    agent = _store_node(pilot.app, store).children[0]
    assert isinstance(agent.data, AgentItem)
    tree.move_cursor(agent)
    await pilot.press("enter")
    await settle(pilot)
    table = next(c for c in agent.children if c.data.table.name == name)
    assert isinstance(table.data, TableItem)
    tree.move_cursor(table)
    await pilot.press("enter")
    await settle(pilot)
    return pilot.app.screen.query_one(NodeTable)


def _add_semantic_fact(store: Path) -> None:
    """What an agent does: open its store read-write and add a fact."""
    db = kuzu.Database(str(store))
    connection = kuzu.Connection(db)
    connection.execute(
        "CREATE (:SemanticMemory {memory_id: $id, concept: 'disk', content: $text, "
        "confidence: 0.9, agent_id: 'ops-agent', created_at: '2026-01-01T00:00:00'})",
        {"id": "live-refresh-fact", "text": "disk /var filled at 03:00"},
    )
    connection.close()
    db.close()


def _add_experiences(store: Path, count: int) -> None:
    """Copies of the first experience under new ids, through SQLite's WAL."""
    writer = sqlite3.connect(store)
    columns = [row[1] for row in writer.execute("PRAGMA table_info(experiences)")]
    rest = ", ".join(c for c in columns if c != "experience_id")
    for number in range(count):
        writer.execute(
            f"INSERT INTO experiences (experience_id, {rest}) "
            f"SELECT ?, {rest} FROM experiences LIMIT 1",
            (f"live-refresh-{number}",),
        )
    writer.commit()
    writer.close()


class IntervalChecks:
    """Counts the checks the app's interval timer runs, so a test waits for checks
    to have happened (with a deadline) instead of for a share of wall-clock time."""

    def __init__(self, monkeypatch) -> None:
        self.count = 0
        check = MemExplorerApp.check_stores

        def counted(app) -> None:
            check(app)
            self.count += 1

        monkeypatch.setattr(MemExplorerApp, "check_stores", counted)

    async def wait(self, pilot: Pilot, more: int) -> None:
        target = self.count + more
        deadline = time.monotonic() + 60
        while self.count < target:
            assert time.monotonic() < deadline, f"the interval ran {self.count} of {target} checks"
            await pilot.pause(0.01)


async def test_a_kuzu_store_written_by_an_agent_is_noticed_on_the_interval(home: Path, monkeypatch):
    store = home / "hierarchical_memory" / "ops-agent" / "kuzu_db"
    checks = IntervalChecks(monkeypatch)
    app = create_app(home, watch_interval=0.05)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert store in app.session.store_watch.paths
        await checks.wait(pilot, 3)  # quiet checks: nothing to say
        assert app.session.changed_stores == []
        label = str(_store_node(app, store).children[0].label)
        assert label == "ops-agent  106 records"
        _add_semantic_fact(store)  # the app lists the store but does not hold it open
        await checks.wait(pilot, 1)  # the first check after the write notices it
        assert app.session.changed_stores == [store]
        assert "ops-agent/kuzu_db changed on disk — R to reload" in _notices(app)
        await checks.wait(pilot, 3)  # still changed, but said once
        assert _notices(app).count("ops-agent/kuzu_db changed on disk — R to reload") == 1
        await pilot.press("R")
        await settle(pilot)
        assert str(_store_node(app, store).children[0].label) == "ops-agent  107 records"
        assert app.session.changed_stores == []


async def test_a_sqlite_store_written_beside_the_open_table_reloads_at_its_page(home: Path):
    store = home / "memory" / "ops-agent" / "experiences.db"
    app = create_app(home, page_size=20, watch_interval=3600)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        table = await _open_table(pilot, store, "experiences")
        before = table.source.browser
        await pilot.press("n", "n")
        await settle(pilot)
        assert table.page is not None and table.page.total == 122
        assert table.page_query.offset == 40
        assert "41–60 of 122" in str(table.query_one("#status", Static).content)
        app.check_stores()
        assert app.session.changed_stores == []
        _add_experiences(store, 3)  # SQLite lets a writer beside the app's reader
        app.check_stores()
        await pilot.pause()
        assert app.session.changed_stores == [store]
        assert "ops-agent/experiences.db changed on disk — R to reload" in _notices(app)
        await pilot.press("R")
        await settle(pilot)
        assert table.source.browser is not before  # a fresh browser
        assert app.session.browsers.get(store) is table.source.browser
        assert table.page_query.offset == 40  # same page
        assert table.page.total == 125
        assert "41–60 of 125" in str(table.query_one("#status", Static).content)
        agent = _store_node(app, store).children[0]
        assert str(agent.label) == "ops-agent  125 records"


async def test_reload_with_nothing_changed_says_so(home: Path):
    app = create_app(home, watch_interval=3600)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.check_stores()
        await pilot.press("R")
        await settle(pilot)
        assert "No store changed on disk since it was loaded" in _notices(app)


async def test_a_change_noticed_while_the_stores_are_listed_is_still_offered(home: Path):
    """The notice said "changed on disk — R to reload" and R then said nothing changed:
    a listing that began before the change cleared it when it finished."""
    store = home / "hierarchical_memory" / "ops-agent" / "kuzu_db"
    app = create_app(home, watch_interval=3600)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        tree = app.screen.query_one(StoresTree)
        tree.reload()  # a listing begins (as ctrl+r or a write's reload start one)…
        _add_semantic_fact(store)  # …an agent writes meanwhile…
        app.check_stores()  # …and the change is noticed before the listing is in
        assert app.session.changed_stores == [store]
        await settle(pilot)
        assert app.session.changed_stores == [store]  # the listing that finished kept it
        await pilot.press("R")
        await settle(pilot)
        assert "No store changed on disk since it was loaded" not in _notices(app)
        assert str(_store_node(app, store).children[0].label) == "ops-agent  107 records"
