"""The app on amplihack-rs's SQLite hierarchical stores: the stores tree, the six
tables of an agent, paging, and a fact's page with its edges (Pilot). Expected
values come from rust-sqlite-MANIFEST.json and the Rust export in the fixture."""

from __future__ import annotations

import json

from conftest import SIZE, settle

from memexplorer.app.explorer_app import create_app
from memexplorer.app.screens.node_detail_screen import NodeDetailScreen
from memexplorer.app.widgets.node_table import NodeTable
from memexplorer.app.widgets.stores_tree import AgentItem, StoreItem, StoresTree

FOLDER = "home/.amplihack/hierarchical_memory"


async def test_tree_lists_every_store_and_the_agents_tables(rust_sqlite_home, rust_sqlite_manifest):
    app = create_app(rust_sqlite_home / "home/.amplihack")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        tree = app.screen.query_one(StoresTree)
        stores = [c for c in tree.root.children if isinstance(c.data, StoreItem)]
        assert [c.data.entry.path.name for c in stores] == [
            "ghost-agent.db", "ops-agent.db", "research-agent.db", "support-bot.db"
        ]  # fmt: skip
        assert all("hierarchical sqlite" in str(c.label) for c in stores)
        counts = rust_sqlite_manifest["databases"][f"{FOLDER}/ops-agent.db"]["counts"]
        ops = stores[1]
        agent = ops.children[0]
        assert isinstance(agent.data, AgentItem) and agent.data.agent == "ops-agent"
        own = counts["ops-agent"]
        records = own["semantic_memories"] + own["episodic_memories"]
        assert str(agent.label) == f"ops-agent  {records} records"
        tree.move_cursor(agent)
        await pilot.press("enter")
        await settle(pilot)
        shown = {str(c.label).split()[0]: int(str(c.label).split()[-1]) for c in agent.children}
        assert shown == counts["ops-agent"]


async def test_page_a_table_and_open_a_fact_with_its_edges(rust_sqlite_home):
    store = rust_sqlite_home / FOLDER / "research-agent.db"
    export = json.loads((rust_sqlite_home / "rust_exports/research-agent.json").read_text())
    app = create_app(store, page_size=5)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        tree = app.screen.query_one(StoresTree)
        await pilot.press("down", "enter")
        await settle(pilot)
        agent = tree.cursor_node
        position = next(i for i, c in enumerate(agent.children)
                        if c.data.table.name == "semantic_memories")  # fmt: skip
        await pilot.press(*["down"] * (position + 1), "enter")
        await settle(pilot)
        table = app.screen.query_one(NodeTable)
        status = lambda: str(table.query_one("#status").render())  # noqa: E731
        assert "1–5 of 7" in status()
        await pilot.press("G")
        await settle(pilot)
        assert "6–7 of 7" in status()
        await pilot.press("g")
        await settle(pilot)
        await pilot.press("slash", *"model D", "enter")
        await settle(pilot)
        assert "1–1 of 1 matching 'model D'" in status()
        first = table.page.data.to_pylist()[0]["memory_id"]
        await pilot.press("o")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, NodeDetailScreen) and screen.detail.key == first
        expected = {(e["target_id"], rel) for key, rel in (
            ("similar_to_edges", "SIMILAR_TO"), ("derives_from_edges", "DERIVES_FROM"),
            ("supersedes_edges", "SUPERSEDES"), ("transitioned_to_edges", "TRANSITIONED_TO"),
        ) for e in export[key] if e["source_id"] == first}  # fmt: skip
        shown = {(e.neighbour_key, rel) for (rel, d), edges in screen.detail.edges.items()
                 if d == "out" for e in edges}  # fmt: skip
        assert shown == expected and expected


async def test_chains_of_an_agent_in_a_sqlite_store(rust_sqlite_home):
    from memexplorer.app.screens.chain_screen import ChainScreen
    from memexplorer.app.widgets.chain_timeline import ChainTimeline

    app = create_app(rust_sqlite_home / FOLDER / "ops-agent.db")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("c")  # the cursor is on the store, its only agent
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ChainScreen) and screen.agent == "ops-agent"
        timeline = screen.query_one(ChainTimeline)
        # rust_sqlite_content.py: the replica count went 3 -> 5 -> 7 (longest chain first)
        assert [s.value for s in timeline.chain.steps] == ["3", "5", "7"]
        assert len(screen.chains) == 2


async def test_the_query_box_runs_the_agents_own_retrieval(rust_sqlite_home):
    from memexplorer.app.screens.query_screen import QueryScreen
    from memexplorer.app.widgets.missed_list import MissedList

    store = rust_sqlite_home / FOLDER / "research-agent.db"
    app = create_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("q")  # the cursor is on the store, its only agent
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, QueryScreen) and screen.profile == "amplihack-rs"
        await pilot.press("slash")
        screen.query_one("#query").value = "RAG-Bench questions"  # "-" is not a key name
        await pilot.press("enter")
        await settle(pilot)
        # Worked out by hand in tests/rust_sqlite/test_rs_query.py.
        assert [n.node_id for n in screen.results.subgraph.nodes] == [
            "res-sota-4", "res-f-1", "res-f-2", "res-f-3", "res-sota-1", "res-sota-2",
            "res-sota-3",
        ]  # fmt: skip
        assert "ranked reads graph stores only" in screen.query_one(MissedList).border_title


async def test_export_and_merge_import_through_the_modals(
    rust_sqlite_home, rust_sqlite_manifest, tmp_path
):
    from textual.widgets import Input

    from memexplorer.app.screens.export_modal import ExportModal
    from memexplorer.app.screens.import_modal import ImportModal
    from memexplorer.app.screens.main_screen import MainScreen

    store = rust_sqlite_home / FOLDER / "ops-agent.db"
    app = create_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("e")  # the cursor is on the store, its only agent
        await settle(pilot)
        assert isinstance(app.screen, ExportModal)
        app.screen.query_one("#output", Input).value = str(tmp_path / "ops.json")
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert isinstance(app.screen, MainScreen)
        await pilot.press("i")
        await settle(pilot)
        modal = app.screen
        assert isinstance(modal, ImportModal)
        other = rust_sqlite_home / "rust_exports/support-bot.json"
        modal.query_one("#source", Input).value = str(other)
        await pilot.press("enter")
        await settle(pilot)
        assert modal.preview.existing == {"SemanticMemory": 0, "EpisodicMemory": 0}
        assert modal.preview.store_counts == {"SemanticMemory": 12, "EpisodicMemory": 6}
        await pilot.press("ctrl+t")
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert isinstance(app.screen, MainScreen)
    exported = json.loads((tmp_path / "ops.json").read_text())
    rust = json.loads((rust_sqlite_home / "rust_exports/ops-agent.json").read_text())
    assert exported["statistics"] == rust["statistics"]
    assert sorted(n["memory_id"] for n in exported["semantic_nodes"]) == sorted(
        n["memory_id"] for n in rust["semantic_nodes"]
    )
    import sqlite3

    counts = rust_sqlite_manifest["databases"][f"{FOLDER}/support-bot.db"]["counts"]
    with sqlite3.connect(store) as conn:  # ops-agent's rows and support-bot's, all new ids
        for table, count in counts["support-bot"].items():
            total = conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
            mine = rust_sqlite_manifest["databases"][f"{FOLDER}/ops-agent.db"]["counts"]
            assert total == mine["ops-agent"][table] + count, table


async def test_the_graph_view_draws_a_facts_neighbourhood(rust_sqlite_home):
    from memexplorer.app.screens.graph_screen import GraphScreen
    from memexplorer.app.widgets.neighbourhood_graph import NeighbourhoodGraph

    store = rust_sqlite_home / FOLDER / "ops-agent.db"
    app = create_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        tree = app.screen.query_one(StoresTree)
        await pilot.press("down", "enter")
        await settle(pilot)
        agent = tree.cursor_node
        position = next(i for i, c in enumerate(agent.children)
                        if c.data.table.name == "semantic_memories")  # fmt: skip
        await pilot.press(*["down"] * (position + 1), "enter")
        await settle(pilot)
        table = app.screen.query_one(NodeTable)
        await pilot.press("slash", *"replica count of the database is 5", "enter")
        await settle(pilot)
        await pilot.press("m")
        await settle(pilot)
        assert isinstance(app.screen, GraphScreen)
        hood = app.screen.query_one(NeighbourhoodGraph).hood
        assert table.page.data.to_pylist()[0]["memory_id"] == "ops-rep-2"
        # rust_sqlite_content.py: ops-rep-2 replaced ops-rep-1 and was replaced by ops-rep-3.
        assert set(hood.nodes) == {f"semantic_memories:ops-rep-{i}" for i in (1, 2, 3)}
        assert sorted(e.rel for e in hood.edges.values()) == [
            "SUPERSEDES", "SUPERSEDES", "TRANSITIONED_TO", "TRANSITIONED_TO"
        ]  # fmt: skip


async def test_delete_a_fact_with_its_edges_then_undo(rust_sqlite_home):
    from rust_sqlite.rust_reference import canonical, rust_export

    from memexplorer.app.screens.clean_modal import CleanModal
    from memexplorer.app.screens.main_screen import MainScreen
    from memexplorer.app.widgets.node_table import TableSource

    home = rust_sqlite_home / "home/.amplihack"
    store = home / "hierarchical_memory/ops-agent.db"
    original = canonical(rust_export(store, "ops-agent"))
    app = create_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        browser = app.session.browsers.get(store)
        info = next(t for t in browser.tables("ops-agent") if t.name == "semantic_memories")
        app.screen.table.show(TableSource(browser, "ops-agent", info), focus=True)
        await settle(pilot)
        table = app.screen.table
        assert table.page.data.to_pylist()[0]["memory_id"] == "ops-f-1"
        await pilot.press("delete")
        await settle(pilot)
        modal = app.screen
        assert isinstance(modal, CleanModal)
        # ops-f-1: SIMILAR_TO to and from ops-f-6, DERIVES_FROM to ops-ep-1.
        assert modal.preview.counts == {"semantic_memories": 1}
        assert modal.preview.edges == {"SIMILAR_TO": 2, "DERIVES_FROM": 1}
        await pilot.press("y")
        await settle(pilot)
        assert isinstance(app.screen, MainScreen) and table.page.total == 11
        await pilot.press("u")
        await settle(pilot)
        assert table.page.total == 12
    assert canonical(rust_export(store, "ops-agent")) == original


async def test_the_console_runs_sql_on_the_store_read_only(rust_sqlite_home, rust_sqlite_manifest):
    from textual.widgets import TextArea

    from memexplorer.app.screens.console_screen import ConsoleScreen

    store = rust_sqlite_home / FOLDER / "ops-agent.db"
    before = store.read_bytes()
    counts = rust_sqlite_manifest["databases"][f"{FOLDER}/ops-agent.db"]["inventory"]["tables"]
    app = create_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("colon")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ConsoleScreen) and screen.engine == "sqlite"
        screen.query_one(TextArea).text = "SELECT count(*) AS n FROM transitioned_to_edges"
        await pilot.press("ctrl+r")
        await settle(pilot)
        assert screen.result.data.to_pylist() == [{"n": counts["transitioned_to_edges"]["count"]}]
    assert store.read_bytes() == before
