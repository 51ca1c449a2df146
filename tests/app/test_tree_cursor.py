"""The stores tree keeps its cursor on the store, agent and table being worked on
across a switch to writing and a reload (it jumped to the first store, so `:` right
after `w` opened the console on another store)."""

from __future__ import annotations

from conftest import SIZE, settle

from memexplorer.app.explorer_app import create_app
from memexplorer.app.widgets.stores_tree import AgentItem, StoresTree, TableItem

RESEARCH = "hierarchical_memory/research-agent/kuzu_db"


async def _press(pilot, *names: str) -> None:
    for name in names:
        await pilot.press(name)
        await settle(pilot)


def _place(tree: StoresTree) -> tuple[str, str | None, str | None]:
    item = tree.cursor_node.data
    table = item.table.name if isinstance(item, TableItem) else None
    agent = item.agent if isinstance(item, AgentItem | TableItem) else None
    return str(item.entry.path), agent, table


async def _to_research_semantic(pilot, tree: StoresTree, home) -> None:
    """Walk the cursor down to research-agent's SemanticMemory table, as an operator would."""
    for _ in range(40):
        item = tree.cursor_node.data
        if isinstance(item, AgentItem) and item.entry.path == home / RESEARCH:
            break
        await _press(pilot, "down")
    await _press(pilot, "space")  # expand the agent: its tables load
    for _ in range(10):
        await _press(pilot, "down")
        item = tree.cursor_node.data
        if isinstance(item, TableItem) and item.table.name == "SemanticMemory":
            return
    raise AssertionError(f"no SemanticMemory under research-agent: {_place(tree)}")


async def test_cursor_stays_across_writing_switch_and_reload(home):
    app = create_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        tree = app.screen.query_one(StoresTree)
        await _to_research_semantic(pilot, tree, home)
        here = (str(home / RESEARCH), "research-agent", "SemanticMemory")
        assert _place(tree) == here
        await _press(pilot, "w", "y")
        assert app.session.browsers.writing(home / RESEARCH)
        assert _place(tree) == here
        await _press(pilot, "w")  # back to read-only
        assert _place(tree) == here
        await _press(pilot, "ctrl+r")
        assert _place(tree) == here


async def test_the_split_follows_the_window_and_moves_with_keys(home):
    """At 80 columns the stores pane leaves the table room (it was a fixed 50);
    < and > move the split, within bounds."""
    app = create_app(home)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        tree = app.screen.query_one(StoresTree)
        table = app.screen.table
        assert tree.outer_size.width <= 32 and table.outer_size.width >= 48
        before = tree.outer_size.width
        await _press(pilot, ">")
        assert tree.outer_size.width == before + 4
        for _ in range(20):
            await _press(pilot, "<")
        assert tree.outer_size.width == 16 and table.outer_size.width == 64
        for _ in range(20):
            await _press(pilot, ">")
        assert table.outer_size.width == 24


async def test_at_80x24_the_table_shows_three_columns(home):
    app = create_app(home)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await _press(pilot, "down", "enter", "down", "down", "enter")  # ops-agent facts
        table = app.screen.table
        assert table.page is not None and table.page.total == 84
        header = table.query_one("#grid").render_line(0).text
        names = [name for name in table.page.data.column_names if f" {name} " in f" {header} "]
        assert len(names) >= 3, header
