"""The app on a home whose path, agent folder, agent names and stored values read as
markup (``[bold]x[/bold]``, ``[/]``, ``[link=…]``) or an emoji code (``:fire:``):
it shows each as stored and keeps running. Before, the stores tree raised
MarkupError as the app started, a node's properties raised it when opened, and a
notice naming the store, the backups list and the console's grid raised it too
(tests/hostile_names.py builds the home)."""

from __future__ import annotations

import html
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import SIZE, settle
from hostile_names import (
    HOSTILE_AGENT_FOLDER,
    HOSTILE_AGENTS,
    HOSTILE_CONTENT,
    HOSTILE_OWNER,
    HOSTILE_SESSION,
    build_hostile_home,
)
from textual.widgets import TextArea
from textual.widgets._toast import Toast
from textual_fastdatatable import DataTable

from memexplorer.app.explorer_app import create_app
from memexplorer.app.screens.backups_screen import BackupsScreen
from memexplorer.app.screens.console_screen import ConsoleScreen
from memexplorer.app.screens.node_detail_screen import NodeDetailScreen
from memexplorer.app.widgets.node_table import NodeTable
from memexplorer.app.widgets.stores_tree import AgentItem, StoresTree

WIDE = (200, SIZE[1])  # room for the longest names unshortened


def shown(app) -> str:
    """Every character on screen, in order (the screenshot's text, tags removed)."""
    svg = app.export_screenshot()
    body = svg[svg.index("<g class") :]  # after the stylesheet
    return html.unescape(re.sub(r"<[^>]+>", "", body)).replace("\xa0", " ")


@pytest.fixture
def home(tmp_path: Path, reference_stores: Path) -> Path:
    return build_hostile_home(tmp_path, reference_stores)


def _agent_node(tree: StoresTree, store_name: str, agent: str):
    store = next(s for s in tree.root.children if store_name in str(s.label))
    agents = (a for a in store.children if isinstance(a.data, AgentItem))
    return next(a for a in agents if a.data.agent == agent)


async def _open(pilot, node) -> None:
    tree = pilot.app.screen.query_one(StoresTree)
    tree.move_cursor(node)
    await pilot.press("enter")
    await settle(pilot)


async def test_the_stores_tree_shows_every_name_as_stored(home: Path):
    app = create_app(home)
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot)
        screen = shown(app)
        assert f"{HOSTILE_AGENT_FOLDER}/kuzu_db  hierarchical kuzu 39" in screen
        for agent in HOSTILE_AGENTS:
            assert f"{agent}  1 record" in screen, agent
        assert f"{HOSTILE_OWNER}  106 records" in screen
        assert "\N{FIRE}" not in screen


async def test_a_hostile_agents_rows_and_node_show_as_stored(home: Path):
    app = create_app(home)
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot)
        tree = app.screen.query_one(StoresTree)
        agent = _agent_node(tree, "memory_graph.db", "[/]")
        await _open(pilot, agent)  # expands it: its tables
        table = next(t for t in agent.children if t.data.table.name == "EpisodicMemory")
        await _open(pilot, table)
        grid = app.screen.query_one(NodeTable).query_one(DataTable)
        screen = shown(app)
        assert "EpisodicMemory of [/]" in screen
        assert HOSTILE_CONTENT[:39] in screen  # the column's width cuts the rest
        assert "\N{FIRE}" not in screen
        grid.focus()
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, NodeDetailScreen)
        screen = shown(app)
        assert f"{HOSTILE_CONTENT} 1" in screen
        assert f"Session  {HOSTILE_SESSION}" in screen  # an edge's label
        assert re.search(r"agent_id +\[/\] ", screen)
        assert "\N{FIRE}" not in screen


async def test_a_notice_names_a_hostile_store_as_stored(home: Path):
    store = home / "hierarchical_memory" / HOSTILE_AGENT_FOLDER / "kuzu_db"
    app = create_app(home, watch_interval=3600)
    async with app.run_test(size=WIDE, notifications=True) as pilot:
        await settle(pilot)
        info = store.stat()
        os.utime(store, ns=(info.st_atime_ns, info.st_mtime_ns + 10**9))
        app.check_stores()
        await settle(pilot)
        (toast,) = app.screen.query(Toast)
        assert toast.render().plain == (
            f"Store changed\n{HOSTILE_AGENT_FOLDER}/kuzu_db changed on disk — R to reload"
        )


async def test_backups_list_hostile_agents_as_stored(home: Path):
    """A clean of the flat SQLite store (the CLI's) leaves a backup naming every agent."""
    cleaned = subprocess.run(
        [sys.executable, "-m", "memexplorer", "clean", "*", "--backend", "sqlite",
         "--home", str(home), "--no-dry-run", "--yes"],
        capture_output=True, text=True,
    )  # fmt: skip
    assert cleaned.returncode == 0, cleaned.stderr
    app = create_app(home)
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot)
        await pilot.press("b")
        await settle(pilot)
        assert isinstance(app.screen, BackupsScreen)
        assert ", ".join(sorted(HOSTILE_AGENTS)) in shown(app)


async def test_the_console_shows_a_hostile_column_and_value_as_stored(home: Path):
    app = create_app(home)
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot)
        tree = app.screen.query_one(StoresTree)
        await _open(pilot, _agent_node(tree, "kuzu_db", HOSTILE_OWNER))
        await pilot.press("colon")
        await settle(pilot)
        assert isinstance(app.screen, ConsoleScreen)
        editor = app.screen.query_one("#editor", TextArea)
        editor.text = "MATCH (n:SemanticMemory) RETURN n.agent_id AS `[/]:fire:` LIMIT 1"
        await pilot.press("ctrl+r")
        await settle(pilot)
        screen = shown(app)
        assert " [/]:fire: " in screen  # the column's label (the query has it in backticks)
        assert f" {HOSTILE_OWNER} " in screen
