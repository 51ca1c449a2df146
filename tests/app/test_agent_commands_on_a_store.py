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
