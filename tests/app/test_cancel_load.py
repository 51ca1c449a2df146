"""A long load shows the spinner and `escape` cancels it: the store's query is
interrupted, the table says so, and no error is shown."""

from __future__ import annotations

import threading

from conftest import SIZE, settle

from memexplorer.app.explorer_app import create_app
from memexplorer.app.screens.error_modal import ErrorModal
from memexplorer.app.widgets.node_table import NodeTable
from memexplorer.app.widgets.stores_tree import StoresTree
from memexplorer.storage.graphdb import QueryError


class SlowBrowser:
    """Wraps a real browser; its pages wait until the query is interrupted."""

    def __init__(self, browser) -> None:
        self.browser = browser
        self.path = browser.path
        self.started = threading.Event()
        self.interrupted = threading.Event()

    def __getattr__(self, name):
        return getattr(self.browser, name)

    def page(self, table, agent, query):
        self.started.set()
        if not self.interrupted.wait(30):
            raise AssertionError("the load was never interrupted")
        raise QueryError("The query was cancelled.")

    def interrupt(self) -> None:
        self.interrupted.set()


async def test_escape_cancels_a_long_load(home):
    app = create_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("down", "enter")
        await settle(pilot)
        tree = app.screen.query_one(StoresTree)
        store = tree.cursor_node.data.entry.path
        slow = SlowBrowser(app.session.browsers.get(store))
        app.session.browsers._browsers[store] = slow
        await pilot.press("down", "down", "enter")
        await pilot.pause()
        assert slow.started.wait(10)
        table = app.screen.query_one(NodeTable)
        assert table.loading
        await pilot.press("escape")
        await settle(pilot)
        assert slow.interrupted.is_set()
        assert not table.loading
        assert "load cancelled" in str(table.query_one("#status").render())
        assert not isinstance(app.screen, ErrorModal)
