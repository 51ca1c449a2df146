"""One home holding Kuzu and LadybugDB stores: both listed with their engine, a
LadybugDB table pages, its nodes open, its agent answers the query box, and no
store file changes."""

from __future__ import annotations

import os
import shutil
from importlib.util import find_spec
from pathlib import Path

import pytest
from conftest import SIZE, settle
from store_helpers import checksums
from textual_fastdatatable import DataTable

from memexplorer.app.explorer_app import create_app
from memexplorer.app.screens.node_detail_screen import NodeDetailScreen
from memexplorer.app.screens.query_screen import QueryScreen
from memexplorer.app.widgets.node_table import NodeTable
from memexplorer.app.widgets.stores_tree import AgentItem, StoreItem, StoresTree, TableItem

pytestmark = pytest.mark.skipif(
    find_spec("ladybug") is None and not os.environ.get("CI"),
    reason="needs the ladybug extra: pip install 'memexplorer[ladybug]'",
)


@pytest.fixture
def mixed_home(reference_stores: Path, ladybug_stores: Path) -> Path:
    """The Kuzu reference home with LadybugDB agents and the shared store added."""
    home = reference_stores / "home" / ".amplihack"
    agents = ladybug_stores / "home" / ".amplihack" / "hierarchical_memory"
    shutil.copytree(agents / "research-agent", home / "hierarchical_memory" / "research-lb")
    shared = home / "shared-lb"
    shared.mkdir()
    shutil.copy2(ladybug_stores / "shared_two_agents" / "ladybug_db", shared / "ladybug_db")
    return home


def _store(tree: StoresTree, path: Path):
    return next(n for n in tree.root.children if n.data.entry.path == path)


async def _open_table(pilot, store_node, agent: str, table: str) -> NodeTable:
    tree = pilot.app.screen.query_one(StoresTree)
    agent_node = next(c for c in store_node.children if c.data.agent == agent)
    agent_node.expand()
    await settle(pilot)
    leaf = next(c for c in agent_node.children
                if isinstance(c.data, TableItem) and c.data.table.name == table)  # fmt: skip
    tree.select_node(leaf)
    await settle(pilot)
    return pilot.app.screen.query_one(NodeTable)


async def test_a_mixed_home_lists_browses_and_queries_both_engines(mixed_home, expected_retrieval):
    before = checksums(mixed_home)
    research = mixed_home / "hierarchical_memory" / "research-lb" / "ladybug_db"
    shared = mixed_home / "shared-lb" / "ladybug_db"
    app = create_app(mixed_home)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        tree = app.screen.query_one(StoresTree)
        stores = [c for c in tree.root.children if isinstance(c.data, StoreItem)]
        labels = [str(c.label) for c in stores]
        assert len(stores) == 7
        assert sum("hierarchical kuzu 39" in label for label in labels) == 3
        assert sum("hierarchical ladybug 49" in label for label in labels) == 2
        assert all(c.data.entry.state == "ok" for c in stores)
        assert [str(c.label) for c in _store(tree, shared).children] == [
            "escalation-bot  8 records", "triage-bot  8 records",
        ]  # fmt: skip

        table = await _open_table(pilot, _store(tree, research), "research-agent", "SemanticMemory")
        assert table.page is not None and table.page.total == 62
        assert app.screen.sub_title == f"read-only · ladybug storage 49 · {research}"
        tags = table.page.data.column("tags").to_pylist()
        assert any(tags) and all(not t.startswith("[") for t in tags if t)  # base64, as stored

        edges = await _open_table(pilot, _store(tree, research), "research-agent", "DERIVES_FROM")
        edge = edges.page.data.to_pylist()[0]
        edges.query_one(DataTable).focus()
        await pilot.press("o")  # the cursor is on _from: the fact
        await settle(pilot)
        detail = app.screen
        assert isinstance(detail, NodeDetailScreen)
        assert (detail.detail.table, detail.detail.key) == ("SemanticMemory", edge["_from"])
        episodes = detail.detail.edges[("DERIVES_FROM", "out")]
        assert edge["_to"] in [e.neighbour_key for e in episodes]
        await pilot.press("escape")
        await settle(pilot)

        kuzu = mixed_home / "hierarchical_memory" / "research-agent" / "kuzu_db"
        table = await _open_table(pilot, _store(tree, kuzu), "research-agent", "SemanticMemory")
        assert table.page.total == 62
        assert app.screen.sub_title == f"read-only · kuzu storage 39 · {kuzu}"

        agent = next(c for c in _store(tree, research).children
                     if isinstance(c.data, AgentItem))  # fmt: skip
        tree.focus()
        tree.move_cursor(agent)
        await pilot.press("q")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, QueryScreen) and screen.store == research
        for case in expected_retrieval["agents"]["research-agent"]:
            await pilot.press("slash")
            screen.query_one("#query").value = ""
            await pilot.press(*case["query"], "enter")
            await settle(pilot)
            # the LadybugDB store replays the Kuzu one with the same ids, and the
            # library's answer is the same in both eras: its ids, in its order
            assert screen.results.shown_ids() == case["node_ids"], case["query"]
    assert checksums(mixed_home) == before


async def test_every_ladybug_store_opens_with_the_manifest_counts(ladybug_stores, ladybug_manifest):
    """The LadybugDB home as written: every graph store listed as ladybug, each agent's
    node tables counting exactly the manifest's live rows, and no file changed."""
    before = checksums(ladybug_stores)
    app = create_app(ladybug_stores)
    checked = 0
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        tree = app.screen.query_one(StoresTree)
        stores = {str(n.data.entry.path.relative_to(ladybug_stores)): n for n in tree.root.children}
        for name, db in ladybug_manifest["databases"].items():
            if name.endswith(".db"):
                continue  # SQLite, read by the same app as in the Kuzu era
            node = stores[name]
            assert node.data.entry.format.engine == "ladybug", name
            for agent_node in node.children:
                agent = agent_node.data.agent
                agent_node.expand()
                await settle(pilot)
                tables = [
                    c.data.table for c in agent_node.children if isinstance(c.data, TableItem)
                ]
                shown = {t.name: t.count for t in tables if t.kind == "node"}
                for table, info in db["inventory"]["node_tables"].items():
                    assert shown[table] == info["per_agent"].get(agent, 0), (name, agent, table)
                    checked += 1
    assert checked >= 20
    assert checksums(ladybug_stores) == before
