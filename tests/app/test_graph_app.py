"""Pilot tests of the graph view: every binding, from the table and from a node."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import SIZE, settle
from graph_stores import HUB, HUB_EDGES, make_hub_store
from test_snapshots import OPEN_FACTS

from memexplorer.app.explorer_app import create_app
from memexplorer.app.screens.graph_commands import GRAPH_COMMANDS
from memexplorer.app.screens.graph_screen import GraphScreen
from memexplorer.app.screens.help_screen import HelpScreen
from memexplorer.app.screens.node_detail_screen import NodeDetailScreen
from memexplorer.app.widgets.neighbourhood_graph import NeighbourhoodGraph
from memexplorer.app.widgets.node_ref import NodeRef
from memexplorer.storage.exceptions import InvalidInputError


@pytest.fixture
def hub_app(tmp_path: Path):
    store = make_hub_store(tmp_path / "kuzu_db")
    app = create_app(tmp_path)
    return app, NodeRef(store.resolve(), "Fact", HUB)


def _graph(app) -> NeighbourhoodGraph:
    assert isinstance(app.screen, GraphScreen)
    return app.screen.query_one(NeighbourhoodGraph)


async def test_from_a_row_and_from_a_node(home):
    app = create_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press(*OPEN_FACTS)
        await settle(pilot)
        await pilot.press("m")
        await settle(pilot)
        graph = _graph(app)
        centre = graph.hood.nodes[graph.hood.centre]
        assert centre.table == "SemanticMemory" and centre.expanded
        assert graph.selected_box.node == centre.id
        assert "depth 1" in str(app.screen.query_one("#status").render())
        await pilot.press("escape")
        await settle(pilot)
        await pilot.press("o")
        await settle(pilot)
        assert isinstance(app.screen, NodeDetailScreen)
        shown = app.screen.ref
        await pilot.press("g")
        await settle(pilot)
        graph = _graph(app)
        assert graph.hood.centre == f"{shown.table}:{shown.key}"
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, NodeDetailScreen)


async def test_moving_opening_expanding_depth_and_centre(hub_app):
    app, ref = hub_app
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.push_screen(GraphScreen(app.session, ref))
        await settle(pilot)
        graph = _graph(app)
        drawing = graph.drawing
        assert len(drawing.boxes) == 1 + 12 + 1  # the centre, 12 neighbours, +488 more
        await pilot.press("right")  # the nearest box hanging from the centre
        assert graph.selected_box.parent == 0 and graph.selected_box.kind == "node"
        await pilot.press("left")
        assert graph.selected == 0
        await pilot.press("tab")
        assert graph.selected_box.node == "Fact:n499"
        await pilot.press("down", "j")
        assert graph.selected_box.node == "Fact:n497"
        await pilot.press("up", "k")
        assert graph.selected_box.node == "Fact:n499"
        await pilot.press("h", "l")
        assert graph.selected_box.parent == 0
        await pilot.press("h", "shift+tab")
        assert graph.selected_box.kind == "more"
        await pilot.press("tab", "tab")
        assert graph.selected_box.node == "Fact:n499"
        # Expand the selected neighbour, then collapse it again.
        await pilot.press("space")
        await settle(pilot)
        assert graph.hood.nodes["Fact:n499"].expanded
        assert graph.selected_box.node == "Fact:n499"
        assert len(graph.drawing.boxes) == 14 + 3  # its three leaves
        await pilot.press("x")
        await settle(pilot)
        assert not graph.hood.nodes["Fact:n499"].expanded
        # "+N more": enter shows the next twelve.
        await pilot.press("left", "shift+tab")
        assert graph.selected_box.kind == "more"
        await pilot.press("enter")
        await settle(pilot)
        assert graph.hood.nodes[graph.hood.centre].hidden == HUB_EDGES - 24
        assert graph.selected_box.kind == "more"
        assert f"+{HUB_EDGES - 24}" in graph.drawing.text
        # Depth 2 and back.
        await pilot.press("d")
        await settle(pilot)
        assert app.screen.view.depth == 2
        assert all(graph.hood.nodes[n].expanded for n in graph.hood.nodes[graph.hood.centre].shown)
        await pilot.press("d")
        await settle(pilot)
        assert app.screen.view.depth == 1
        # Centre on a neighbour, then open its detail.
        await pilot.press("left", "tab")
        await pilot.press("c")
        await settle(pilot)
        assert graph.hood.centre == "Fact:n499" and app.screen.ref.key == "n499"
        await pilot.press("right")
        selected = graph.selected_box.node
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, NodeDetailScreen)
        assert f"{app.screen.ref.table}:{app.screen.ref.key}" == selected
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, GraphScreen)
        await pilot.press("escape")
        await settle(pilot)
        assert not isinstance(app.screen, GraphScreen)


async def test_space_on_the_centre_expands_and_down_leaves_it(hub_app):
    """The centre never collapses to one box: space draws twelve more of its edges;
    from the centre, down and up reach the boxes below and above it."""
    app, ref = hub_app
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.push_screen(GraphScreen(app.session, ref))
        await settle(pilot)
        graph = _graph(app)
        assert graph.selected == 0 and graph.hood.nodes[graph.hood.centre].hidden == HUB_EDGES - 12
        await pilot.press("space")
        await settle(pilot)
        centre = graph.hood.nodes[graph.hood.centre]
        assert centre.expanded and centre.hidden == HUB_EDGES - 24
        assert len(graph.drawing.boxes) == 1 + 24 + 1
        assert graph.selected == 0
        middle = graph.selected_box.middle
        await pilot.press("down")
        assert graph.selected_box.middle > middle and graph.selected_box.parent == 0
        await pilot.press("left", "up")
        assert graph.selected_box.middle < middle and graph.selected_box.parent == 0


async def test_help_and_palette_list_the_graph_keys(hub_app):
    app, ref = hub_app
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.push_screen(GraphScreen(app.session, ref))
        await settle(pilot)
        await pilot.press("f1")
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)
        assert "The neighbourhood graph" in app.screen.markdown
        for command in GRAPH_COMMANDS:
            assert command.help in app.screen.markdown
        await pilot.press("escape")
        await settle(pilot)
        titles = {c.title for c in app.get_system_commands(app.screen)}
        assert {"Expand", "Depth 1/2", "Centre"} <= titles


async def test_a_click_selects_a_box(hub_app):
    app, ref = hub_app
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.push_screen(GraphScreen(app.session, ref))
        await settle(pilot)
        graph = _graph(app)
        top, height = graph.scroll_y, graph.scrollable_content_region.height
        target = next(b for b in graph.drawing.boxes[1:] if top <= b.middle < top + height)
        await pilot.click("#drawing", offset=(target.x + 3, target.middle))
        assert graph.selected_box is target


async def test_a_sqlite_row_reports_an_error(home):
    app = create_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        experience = next(home.rglob("experiences.db")).resolve()
        app.push_screen(GraphScreen(app.session, NodeRef(experience, "experiences", "x")))
        await settle(pilot, failures=(InvalidInputError,))
        assert "no edges" in app.screen.message


async def test_the_line_says_a_node_closed_at_depth_2(hub_app):
    """x on a neighbour at depth 2 closes it: its leaves go, and the line said only
    "depth 2" over a drawing that looked like depth 1 (on the demo's memory_graph.db,
    an episode whose one neighbour is a session: x on the session left two boxes)."""
    app, ref = hub_app
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.push_screen(GraphScreen(app.session, ref))
        await settle(pilot)
        graph = _graph(app)
        await pilot.press("d")
        await settle(pilot)
        status = app.screen.query_one("#status")
        assert str(status.render()).startswith("depth 2 · ")
        await pilot.press("right")  # a neighbour of the hub, open at depth 2
        neighbour = graph.selected_box.node
        assert graph.hood.nodes[neighbour].expanded
        await pilot.press("x")
        await settle(pilot)
        assert not graph.hood.nodes[neighbour].expanded
        assert str(status.render()).startswith("depth 2 · 1 node closed (x opens) · ")
        await pilot.press("x")
        await settle(pilot)
        assert graph.hood.nodes[neighbour].expanded
        assert str(status.render()).startswith("depth 2 · ")
        assert "closed" not in str(status.render())
