"""LadybugDB-era tags and metadata are base64 of JSON: the node view and the value
view show them decoded with a note, the table marks the columns, no file changes."""

from __future__ import annotations

import base64
import json
import os
import shutil
from importlib.util import find_spec
from pathlib import Path

import pytest
from conftest import SIZE, settle
from store_helpers import checksums
from textual.widgets import DataTable

from memexplorer.app.explorer_app import create_app
from memexplorer.app.screens.node_detail_screen import NodeDetailScreen
from memexplorer.app.screens.value_modal import ValueModal
from memexplorer.app.widgets.node_ref import NodeRef
from memexplorer.app.widgets.node_table import NodeTable
from memexplorer.app.widgets.stores_tree import StoresTree, TableItem

pytestmark = pytest.mark.skipif(
    find_spec("ladybug") is None and not os.environ.get("CI"),
    reason="needs the ladybug extra: pip install 'memexplorer[ladybug]'",
)

AGENT = "ops-agent"
FACT = "b536f7b7-d3e9-4415-ba14-ea33603c2eee"


@pytest.fixture
def ladybug_home(ladybug_stores: Path, tmp_path: Path) -> Path:
    home = tmp_path / ".amplihack"
    source = ladybug_stores / "home" / ".amplihack" / "hierarchical_memory" / AGENT
    shutil.copytree(source, home / "hierarchical_memory" / AGENT)
    return home


async def test_node_and_value_views_decode_base64_metadata(ladybug_home):
    before = checksums(ladybug_home)
    store = ladybug_home / "hierarchical_memory" / AGENT / "ladybug_db"
    app = create_app(ladybug_home)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.open_node(NodeRef(store, "SemanticMemory", FACT))
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, NodeDetailScreen) and screen.detail is not None
        stored = screen.detail.properties["metadata"]
        assert not stored.startswith("{")  # the store holds base64
        properties = screen.query_one("#properties", DataTable)
        cell = properties.get_cell("metadata", properties.ordered_columns[1].key)
        metadata = json.loads(base64.b64decode(stored))
        assert str(cell).startswith(json.dumps(metadata, ensure_ascii=False)[:40])
        assert str(cell).endswith("(stored as base64)")

        properties.move_cursor(row=properties.get_row_index("metadata"))
        await pilot.press("v")
        await settle(pilot)
        modal = app.screen
        assert isinstance(modal, ValueModal) and modal.is_json
        assert json.loads(modal.text) == metadata and modal.note == "stored as base64"
        assert modal.text == json.dumps(metadata, indent=2, ensure_ascii=False)
        await pilot.press("escape", "escape")
        await settle(pilot)

        tree = app.screen.query_one(StoresTree)
        store_node = next(n for n in tree.root.children if n.data.entry.path == store)
        agent_node = next(c for c in store_node.children if c.data.agent == AGENT)
        agent_node.expand()
        await settle(pilot)
        leaf = next(
            c
            for c in agent_node.children
            if isinstance(c.data, TableItem) and c.data.table.name == "SemanticMemory"
        )
        tree.select_node(leaf)
        await settle(pilot)
        table = app.screen.query_one(NodeTable)
        assert table.base64_columns == ["tags", "metadata"]
        status = str(table.query_one("#status").render())
        assert "tags, metadata: stored as base64" in status
    assert checksums(ladybug_home) == before
