"""Pilot tests: browse stores, agents and tables; page, sort, filter; open nodes and
follow edges back and forth; help, values and errors."""

from __future__ import annotations

from conftest import SIZE, settle
from store_helpers import held_by_another_process
from textual_fastdatatable import DataTable

from memexplorer.app.explorer_app import create_app
from memexplorer.app.screens.error_modal import ErrorModal
from memexplorer.app.screens.help_screen import HelpScreen
from memexplorer.app.screens.node_detail_screen import NodeDetailScreen
from memexplorer.app.screens.value_modal import ValueModal
from memexplorer.app.widgets.node_table import NodeTable
from memexplorer.app.widgets.stores_tree import AgentItem, StoreItem, StoresTree, TableItem


def _labels(node) -> list[str]:
    return [str(child.label) for child in node.children]


async def _open_table(pilot, name: str, agent_line: int = 1) -> NodeTable:
    """From the first store: expand its agent and choose the table called ``name``."""
    tree = pilot.app.screen.query_one(StoresTree)
    await pilot.press(*["down"] * agent_line, "enter")
    await settle(pilot)
    agent = tree.cursor_node
    assert isinstance(agent.data, AgentItem)
    position = next(i for i, c in enumerate(agent.children) if c.data.table.name == name)
    await pilot.press(*["down"] * (position + 1), "enter")
    await settle(pilot)
    return pilot.app.screen.query_one(NodeTable)


async def test_stores_agents_and_tables(home):
    app = create_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        tree = app.screen.query_one(StoresTree)
        stores = [c for c in tree.root.children if isinstance(c.data, StoreItem)]
        labels = [str(c.label) for c in stores]
        assert len(stores) == 5
        assert sum("hierarchical kuzu 39" in label for label in labels) == 3
        assert any("experience sqlite" in label for label in labels)
        assert _labels(stores[0]) == ["ops-agent  106 records"]
        await pilot.press("down", "enter")
        await settle(pilot)
        assert _labels(stores[0].children[0]) == [
            "EpisodicMemory  22", "SemanticMemory  84", "DERIVES_FROM  27",
            "SIMILAR_TO  164", "SUPERSEDES  21",
        ]  # fmt: skip
        assert app.screen.sub_title.startswith("read-only")


async def test_paging_sorting_and_filtering(home):
    app = create_app(home, page_size=20)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        table = await _open_table(pilot, "SemanticMemory")
        status = lambda: str(table.query_one("#status").render())  # noqa: E731
        assert "1–20 of 84" in status()
        for key, shown in (("n", "21–40"), ("G", "81–84"), ("p", "61–80"), ("g", "1–20"),
                           ("n", "21–40"), ("p", "1–20"), ("p", "1–20")):  # fmt: skip
            await pilot.press(key)
            await settle(pilot)
            assert f"{shown} of 84" in status(), key
        grid = table.query_one(DataTable)
        grid.move_cursor(column=table.page.data.column_names.index("confidence"))
        await pilot.press("s")
        await settle(pilot)
        values = table.page.data.column("confidence").to_pylist()
        assert values == sorted(values) and "sorted by confidence ↑" in status()
        await pilot.press("s")
        await settle(pilot)
        values = table.page.data.column("confidence").to_pylist()
        assert values == sorted(values, reverse=True) and "↓" in status()
        await pilot.press("slash", *"replica", "enter")
        await settle(pilot)
        assert "matching 'replica'" in status()
        assert 0 < table.page.total < 84
        assert all("replica" in str(row).lower() for row in table.page.data.to_pylist())
        await pilot.press("escape")
        await settle(pilot)
        assert "1–20 of 84" in status()


async def test_value_modal_and_help(home):
    app = create_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        table = await _open_table(pilot, "SemanticMemory")
        table.query_one(DataTable).move_cursor(column=table.page.data.column_names.index("tags"))
        await pilot.press("v")
        await settle(pilot)
        assert isinstance(app.screen, ValueModal) and app.screen.is_json
        assert app.screen.text.startswith("[\n")
        await pilot.press("escape")
        await pilot.press("f1")
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)
        for line in ("| `s` | Sort |", "| `n or PgDn` | Next page |", "| `ctrl+q` | Quit |"):
            assert line in app.screen.markdown
        await pilot.press("escape")
        await settle(pilot)
        assert not isinstance(app.screen, HelpScreen)


async def test_open_a_fact_follow_it_to_its_episode_and_back(home):
    app = create_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        table = await _open_table(pilot, "DERIVES_FROM")
        edge = table.page.data.to_pylist()[0]
        await pilot.press("o")  # the cursor is on _from: the fact
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, NodeDetailScreen)
        assert screen.detail.table == "SemanticMemory" and screen.detail.key == edge["_from"]
        episodes = screen.detail.edges[("DERIVES_FROM", "out")]
        assert [e.neighbour_key for e in episodes] == [edge["_to"]]
        edges_tree = screen.query_one("#edges")
        edges_tree.focus()
        node = next(n for g in edges_tree.root.children for n in g.children
                    if n.data and n.data.key == edge["_to"])  # fmt: skip
        edges_tree.move_cursor(node)
        await pilot.press("enter")
        await settle(pilot)
        assert app.screen.detail.table == "EpisodicMemory"
        assert edge["_from"] in {e.neighbour_key for e in
                                 app.screen.detail.edges[("DERIVES_FROM", "in")]}  # fmt: skip
        await pilot.press("backspace")
        await settle(pilot)
        assert app.screen.detail.key == edge["_from"]
        await pilot.press("alt+right")
        await settle(pilot)
        assert app.screen.detail.key == edge["_to"]
        await pilot.press("escape")
        await settle(pilot)
        assert not isinstance(app.screen, NodeDetailScreen)
        assert app.history == []


async def test_a_locked_store_is_shown_and_explained(home):
    store = home / "hierarchical_memory" / "ops-agent" / "kuzu_db"
    with held_by_another_process(store, "rw"):
        app = create_app(home)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            tree = app.screen.query_one(StoresTree)
            first = tree.root.children[0]
            assert "locked (in use)" in str(first.label)
            assert not first.children
            await pilot.press("enter")
            await settle(pilot)
            assert isinstance(app.screen, ErrorModal)
            assert "Another process" in app.screen.message
            await pilot.press("escape")
            await settle(pilot)
            assert not isinstance(app.screen, ErrorModal)


async def test_every_store_kind_opens_a_table(reference_stores):
    app = create_app(reference_stores)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        tree = app.screen.query_one(StoresTree)
        kinds = set()
        for store in tree.root.children:
            for agent in store.children:
                agent.expand()
        await settle(pilot)
        for store in tree.root.children:
            kinds.add(store.data.entry.kind)
            for agent in store.children:
                leaf = next(c for c in agent.children if isinstance(c.data, TableItem))
                tree.select_node(leaf)
                await settle(pilot)
                table = app.screen.query_one(NodeTable)
                assert table.page is not None and table.page.total == leaf.data.table.count
        assert {"hierarchical", "cognitive", "experience"} <= kinds


async def test_palette_lists_the_commands(home):
    app = create_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        titles = {command.title for command in app.get_system_commands(app.screen)}
        assert {"Sort", "Filter", "Next page", "Open", "Value", "Help", "Reload"} <= titles


async def test_focus_keys_and_reload(home):
    app = create_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        table = await _open_table(pilot, "SemanticMemory")
        assert app.focused is table.query_one(DataTable)
        await pilot.press("t")
        assert isinstance(app.focused, StoresTree)
        await pilot.press("r")
        assert app.focused is table.query_one(DataTable)
        await pilot.press("ctrl+r")
        await settle(pilot)
        tree = app.screen.query_one(StoresTree)
        assert len([c for c in tree.root.children if isinstance(c.data, StoreItem)]) == 5
        assert table.page is not None and table.page.total == 84
