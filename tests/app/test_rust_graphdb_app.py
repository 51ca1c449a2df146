"""The app on the Rust-era graph-db home: every store listed with its engine and
storage version (ladybug 40 for graph_db, kuzu 39 for the legacy kuzu_db), tables
page with the MANIFEST's counts, a fact opens, the chains show the values the Rust
import wrote, and no byte changes."""

from __future__ import annotations

import os
from importlib.util import find_spec

import pytest
from conftest import SIZE, settle
from store_helpers import checksums
from textual_fastdatatable import DataTable

from memexplorer.app.explorer_app import create_app
from memexplorer.app.screens.chain_screen import ChainScreen
from memexplorer.app.screens.error_modal import ErrorModal
from memexplorer.app.screens.node_detail_screen import NodeDetailScreen
from memexplorer.app.widgets.chain_timeline import ChainTimeline
from memexplorer.app.widgets.node_table import NodeTable
from memexplorer.app.widgets.stores_tree import StoreItem, StoresTree, TableItem
from memexplorer.storage.exceptions import LegacyStoreError

pytestmark = pytest.mark.skipif(
    find_spec("ladybug") is None and not os.environ.get("CI"),
    reason="needs the ladybug extra: pip install 'memexplorer[ladybug]'",
)


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


async def test_the_app_opens_every_rust_store(rust_graphdb_home, rust_graphdb_manifest):
    home = rust_graphdb_home / "home" / ".amplihack"
    before = checksums(rust_graphdb_home)
    app = create_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        tree = app.screen.query_one(StoresTree)
        nodes = {str(n.data.entry.path.relative_to(rust_graphdb_home)): n
                 for n in tree.root.children if isinstance(n.data, StoreItem)}  # fmt: skip
        databases = rust_graphdb_manifest["databases"]
        assert set(nodes) == set(databases)
        hierarchical = {n: e for n, e in databases.items() if not e["kind"].startswith("flat")}
        for name, entry in databases.items():
            label = str(nodes[name].label)
            version = entry["header"]["storage_version"]
            kind = "hierarchical" if name in hierarchical else "flat"
            assert f"{kind} {entry['engine']} {version}" in label, label
            assert nodes[name].data.entry.state == "ok"

        for name, entry in hierarchical.items():
            agent = entry["agents"][0]
            table = await _open_table(pilot, nodes[name], agent, "SemanticMemory")
            expected = entry["inventory"]["node_tables"]["SemanticMemory"]["count"]
            assert table.page is not None and table.page.total == expected, name
            version = entry["header"]["storage_version"]
            shown = f"read-only · {entry['engine']} storage {version} · {rust_graphdb_home / name}"
            assert app.screen.sub_title == shown

        deploy = "home/.amplihack/hierarchical_memory/deploy-agent/graph_db"
        edges = await _open_table(pilot, nodes[deploy], "deploy-agent", "TRANSITIONED_TO")
        rows = edges.page.data.to_pylist()
        assert sorted((r["from_value"], r["to_value"], r["turn"]) for r in rows) == [
            ("4", "3", 1), ("6", "4", 2), ("8", "6", 3)]  # fmt: skip
        edges.query_one(DataTable).focus()
        await pilot.press("o")  # the cursor is on _from: the newer fact
        await settle(pilot)
        detail = app.screen
        assert isinstance(detail, NodeDetailScreen)
        assert detail.detail.table == "SemanticMemory"
        assert ("TRANSITIONED_TO", "out") in detail.detail.edges
        await pilot.press("escape")
        await settle(pilot)

        tree.focus()
        tree.move_cursor(nodes["home/.amplihack/hierarchical_memory/docs-agent/graph_db"])
        await pilot.press("c")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ChainScreen) and screen.agent == "docs-agent"
        timeline = screen.query_one(ChainTimeline)
        # docs-site: jekyll, hugo, mkdocs, then docusaurus and sphinx both replace
        # mkdocs (a fork), then mkdocs again: six facts in one chain.
        assert len(screen.chains) == 1 and len(timeline.chain.steps) == 6
    assert checksums(rust_graphdb_home) == before


async def test_writing_mode_on_a_legacy_kuzu_db_names_the_migrate_command(rust_graphdb_home):
    home = rust_graphdb_home / "home" / ".amplihack"
    legacy = home / "hierarchical_memory" / "legacy-agent" / "kuzu_db"
    before = checksums(rust_graphdb_home)
    app = create_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        tree = app.screen.query_one(StoresTree)
        node = next(n for n in tree.root.children
                    if isinstance(n.data, StoreItem) and n.data.entry.path == legacy)  # fmt: skip
        tree.focus()
        tree.move_cursor(node)
        await settle(pilot)
        for key in ("w", "y"):
            await pilot.press(key)
            await settle(pilot, (LegacyStoreError,))
        assert isinstance(app.screen, ErrorModal)
        assert app.screen.error_title == LegacyStoreError.title
        command = f"memexplorer migrate {legacy} {legacy.with_name('graph_db')} --engine ladybug"
        assert command in app.screen.message
        assert not app.session.browsers.writing(legacy)
    assert checksums(rust_graphdb_home) == before
