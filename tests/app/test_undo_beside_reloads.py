"""The app never holds a second Kuzu database on a store while it writes that store.

The README tour once ended on "Damaged store — Found duplicated primary key value"
after a clean undone at once: the clean's reload was still reading the stores when
the undo's restore wrote one, and a read-only database opened beside the restore
replayed its log mid-checkpoint. Here the restore is held inside its write while
the tree reloads, and every kuzu database the process opens is watched.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import kuzu
import pytest
from conftest import SIZE, settle
from textual.widgets.tree import TreeNode

from memexplorer.app.explorer_app import create_app
from memexplorer.app.screens.main_screen import MainScreen
from memexplorer.app.widgets.node_table import TableSource
from memexplorer.app.widgets.stores_tree import AgentItem, StoresTree
from memexplorer.operator import backups
from memexplorer.operator.backup_records import list_backups
from memexplorer.storage.graphdb import KuzuStore

OPS = "hierarchical_memory/ops-agent/kuzu_db"
#: How long the restore stays inside its write, seconds: the tree's reload, asked for
#: at the same time, opens the store well within it.
HELD_S = 1.5


class Databases:
    """Every kuzu.Database open in this process, by path; two at once on a path one of
    them writes is recorded."""

    def __init__(self) -> None:
        self.open: dict[str, list[bool]] = {}
        self.beside_a_writer: list[str] = []
        self.lock = threading.Lock()

    def watched(self) -> type:
        watch = self

        class Database(kuzu.Database):
            def __init__(self, path: str, *args: Any, read_only: bool = False, **kw: Any):
                super().__init__(path, *args, read_only=read_only, **kw)
                self._watched = (str(Path(path).resolve()), read_only)
                with watch.lock:
                    modes = watch.open.setdefault(self._watched[0], [])
                    modes.append(read_only)
                    if len(modes) > 1 and not all(modes):
                        watch.beside_a_writer.append(self._watched[0])

            def close(self) -> None:
                with watch.lock:
                    key, read_only = self.__dict__.pop("_watched", (None, None))
                    if key is not None:
                        watch.open[key].remove(read_only)
                super().close()

        return Database


def _agent_node(tree: StoresTree, store: Path, agent: str) -> TreeNode[Any]:
    for node in tree.root.children:
        for child in node.children:
            item = child.data
            if isinstance(item, AgentItem) and (item.entry.path, item.agent) == (store, agent):
                return child
    raise AssertionError(f"{agent} of {store} is not in the tree")


@pytest.fixture
def databases(monkeypatch: pytest.MonkeyPatch) -> Databases:
    watch = Databases()
    monkeypatch.setattr(kuzu, "Database", watch.watched())
    return watch


async def test_a_reload_during_the_undo_waits_for_its_write(home, databases, monkeypatch):
    store = home / OPS
    with KuzuStore(store) as graph:
        semantic = int(graph.scalar("MATCH (n:SemanticMemory) RETURN count(n)"))
    inside = threading.Event()
    put_back = backups.insert_edges

    def slow_edges(graph: Any, saved: Any) -> Any:
        inside.set()
        threading.Event().wait(HELD_S)  # the restore's database stays open meanwhile
        return put_back(graph, saved)

    monkeypatch.setattr(backups, "insert_edges", slow_edges)
    app = create_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, MainScreen)
        browser = app.session.browsers.get(store)
        info = next(t for t in browser.tables("ops-agent") if t.name == "SemanticMemory")
        screen.table.show(TableSource(browser, "ops-agent", info), focus=True)
        await settle(pilot)
        await pilot.press("delete")
        await settle(pilot)
        await pilot.press("y")
        await settle(pilot)
        assert screen.table.page is not None and screen.table.page.total == semantic - 1
        tree = screen.query_one(StoresTree)
        await pilot.press("u")
        assert inside.wait(30)  # the restore is writing
        # What the clean's own reload does once it has listed the stores (on a loaded
        # machine, after the undo began): read the agent's tables, opening the store.
        node = _agent_node(tree, store, "ops-agent")
        tree.load_tables(node, node.data)
        await settle(pilot)
        assert screen.table.page.total == semantic
        assert list_backups(home)[0].restored
    assert databases.beside_a_writer == []
    with KuzuStore(store) as graph:
        assert int(graph.scalar("MATCH (n:SemanticMemory) RETURN count(n)")) == semantic
