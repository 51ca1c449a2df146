"""A command for a hierarchical agent, pressed on a store of another kind with several
agents, says at once that this kind of store has none: it said "Choose an agent in
the stores tree first", and on the agent then "memory.db is a flat store: …"."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import SIZE, settle

from memexplorer.app.explorer_app import create_app
from memexplorer.app.screens.main_screen import MainScreen
from memexplorer.app.widgets.stores_tree import StoresTree
from memexplorer.operator.demo import write_demo_home


@pytest.mark.parametrize(("key", "said"), [
    ("h", "snapshots and diffs work on hierarchical agent stores"),
    ("q", "only hierarchical stores"),
    ("c", "no temporal chains"),
    ("e", "export works on hierarchical agent stores"),
    ("d", "duplicates are facts of a hierarchical agent"),
])  # fmt: skip
async def test_a_flat_store_of_several_agents_says_its_kind(tmp_path: Path, key, said):
    home = write_demo_home(tmp_path / ".amplihack")
    store = home / "memory.db"
    app = create_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        tree = app.screen.query_one(StoresTree)
        flat = next(n for n in tree.root.children if n.data.entry.path == store)
        assert len(flat.data.entry.agents) > 1  # no one agent is meant
        tree.move_cursor(flat)
        tree.focus()
        await pilot.press(key)
        await settle(pilot)
        assert isinstance(app.screen, MainScreen)
        notices = [str(n.message) for n in app._notifications]
    assert any(text.startswith("memory.db is a flat store: ") and said in text
               for text in notices), notices  # fmt: skip


async def test_a_store_that_could_not_be_read_says_so(tmp_path: Path):
    """A damaged store has no kind to name: the command says it could not be read
    and how to see why (it said "memory_graph.db is an unknown store: …")."""
    home = write_demo_home(tmp_path / ".amplihack")
    store = home / "memory_graph.db"
    with open(store, "r+b") as handle:
        handle.truncate(5000)  # cut, as a copy that stopped half way
    app = create_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        tree = app.screen.query_one(StoresTree)
        damaged = next(n for n in tree.root.children if n.data.entry.path == store)
        assert damaged.data.entry.summary is None
        tree.move_cursor(damaged)
        tree.focus()
        await pilot.press("q")
        await settle(pilot)
        notices = [str(n.message) for n in app._notifications]
    assert any(text.startswith("memory_graph.db could not be read (Damaged store)")
               and "enter on it shows why" in text for text in notices), notices  # fmt: skip
