"""Pilot tests of the Chain view: reaching it (c on the stores, on the open table, on a
fact), every key of the chain scope, flags drawn from a store with forks, errors."""

from __future__ import annotations

from pathlib import Path

from conftest import SIZE, settle
from textual.widgets import DataTable

from memexplorer.app.explorer_app import create_app
from memexplorer.app.screens.chain_screen import ChainScreen
from memexplorer.app.screens.error_modal import ErrorModal
from memexplorer.app.screens.help_screen import HelpScreen
from memexplorer.app.screens.main_screen import MainScreen
from memexplorer.app.screens.node_detail_screen import NodeDetailScreen
from memexplorer.app.screens.value_modal import ValueModal
from memexplorer.app.widgets.chain_timeline import ChainTimeline
from memexplorer.app.widgets.node_ref import NodeRef
from memexplorer.app.widgets.stores_tree import AgentItem, StoresTree
from memexplorer.memory.hierarchical_memory import HierarchicalMemory
from memexplorer.storage.exceptions import InvalidInputError

OPS_CONCEPTS = ["aws monthly-bill", "checkout-api replicas", "payments-db storage",
                "oncall rotation size", "grafana version"]  # fmt: skip


def _ops_store(home: Path) -> Path:
    return home / "hierarchical_memory" / "ops-agent" / "kuzu_db"


def _rows(screen: ChainScreen) -> list[str]:
    table = screen.query_one("#chains", DataTable)
    return [str(table.get_row_at(i)[0]) for i in range(table.row_count)]


def _timeline(app) -> ChainTimeline:
    return app.screen.query_one(ChainTimeline)


async def test_c_on_a_store_lists_its_agents_chains(home):
    app = create_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("c")  # the cursor is on the ops-agent store, its only agent
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ChainScreen) and screen.agent == "ops-agent"
        assert _rows(screen) == OPS_CONCEPTS
        timeline = _timeline(app)
        assert timeline.chain is screen.chains[0]
        assert [s.value for s in timeline.chain.steps] == ["41200", "45500", "39800", "52000",
                                                           "48700"]  # fmt: skip
        assert timeline.highlighted == 4 and timeline.step.current
        title = str(screen.query_one("#chain-title").render())
        assert "10 stored chain edges, 4 after transitive reduction" in title
        assert screen.query_one("#chains", DataTable).has_focus


async def test_c_follows_the_tree_cursor_or_the_open_table(home):
    app = create_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        tree = app.screen.query_one(StoresTree)
        await pilot.press("down", "down", "down")  # the research-agent agent
        assert isinstance(tree.cursor_node.data, AgentItem)
        await pilot.press("enter")  # expand it, then choose SemanticMemory (its 2nd table)
        await settle(pilot)
        await pilot.press("down", "down", "enter")
        await settle(pilot)
        await pilot.press("c")  # the table has the keyboard: its agent
        await settle(pilot)
        assert isinstance(app.screen, ChainScreen) and app.screen.agent == "research-agent"
        assert _rows(app.screen)[0] == "copper price"
        await pilot.press("escape")
        await settle(pilot)
        await pilot.press("t", "down", "down", "down", "c")  # a research-agent rel table
        await settle(pilot)
        assert isinstance(app.screen, ChainScreen) and app.screen.agent == "research-agent"
        await pilot.press("escape")
        await settle(pilot)
        await pilot.press("down", "down", "c")  # the tree's cursor on the support-bot agent
        await settle(pilot)
        assert isinstance(app.screen, ChainScreen) and app.screen.agent == "support-bot"


def _warnings(app) -> list[tuple[str, str]]:
    """(title, message) of every warning shown so far, then forgotten."""
    shown = [(n.title, n.message) for n in app._notifications if n.severity == "warning"]
    app.clear_notifications()
    return shown


async def test_c_where_there_are_no_chains_warns(home):
    app = create_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.clear_notifications()
        await pilot.press(*["down"] * 7, "c")  # the experience store (sqlite)
        await settle(pilot)
        assert isinstance(app.screen, MainScreen)
        assert _warnings(app) == [
            ("No chains here", "experiences.db is an experience store: no temporal chains")
        ]
        app.open_node(
            NodeRef(_ops_store(home), "EpisodicMemory", "f5057fee-4c3e-4459-82dd-21250b729601")
        )
        await settle(pilot)
        await pilot.press("c")  # an episode, not a fact
        await settle(pilot)
        assert isinstance(app.screen, NodeDetailScreen)
        assert _warnings(app) == [("", "Only facts (SemanticMemory nodes) have chains")]


async def test_every_key_of_the_chain_screen(home):
    app = create_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("c")
        await settle(pilot)
        screen = app.screen
        await pilot.press("down")  # the list has the keyboard: the next chain shows
        await settle(pilot)
        assert _timeline(app).chain.concept == "checkout-api replicas"
        await pilot.press("t")
        assert _timeline(app).has_focus
        await pilot.press("up", "up")
        assert _timeline(app).highlighted == 1
        await pilot.press("c")
        assert _timeline(app).highlighted == 3 and _timeline(app).step.current
        await pilot.press("up", "v")
        await settle(pilot)
        assert (
            isinstance(app.screen, ValueModal)
            and app.screen.text == screen.query_one(ChainTimeline).step.content
        )
        await pilot.press("escape")
        await settle(pilot)
        step = _timeline(app).step
        await pilot.press("o")
        await settle(pilot)
        assert isinstance(app.screen, NodeDetailScreen) and app.screen.ref.key == step.memory_id
        await pilot.press("backspace")  # back from the first node: to the chains
        await settle(pilot)
        assert app.screen is screen
        await pilot.press("enter")  # enter on a step opens it too
        await settle(pilot)
        assert isinstance(app.screen, NodeDetailScreen) and app.screen.ref.key == step.memory_id
        await pilot.press("escape")
        await settle(pilot)
        await pilot.press("l")
        assert screen.query_one("#chains", DataTable).has_focus
        await pilot.press("enter")  # choosing a chain moves to its timeline
        assert _timeline(app).has_focus
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, MainScreen)


async def test_c_on_a_fact_opens_its_chain_at_its_step(home, manifest):
    store = "home/.amplihack/hierarchical_memory/ops-agent/kuzu_db"
    [aws] = [c for c in manifest["databases"][store]["inventory"]["supersedes_components"][
        "ops-agent"] if c["concept"] == "aws monthly-bill"]  # fmt: skip
    members = [m["memory_id"] for m in aws["members_by_temporal_index"]]
    app = create_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.open_node(NodeRef(_ops_store(home), "SemanticMemory", members[2]))
        await settle(pilot)
        await pilot.press("c")
        await settle(pilot)
        assert isinstance(app.screen, ChainScreen) and app.screen.memory_id == members[2]
        timeline = _timeline(app)
        assert timeline.has_focus and timeline.chain.concept == "aws monthly-bill"
        assert timeline.step.memory_id == members[2]
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, NodeDetailScreen)
        # A fact in no chain: its chain of one comes first.
        plain = "0b62aff1-f0a3-417a-aa8f-f4e9e1482dc5"
        app.open_node(NodeRef(_ops_store(home), "SemanticMemory", plain))
        await settle(pilot)
        await pilot.press("c")
        await settle(pilot)
        assert _rows(app.screen) == ["service ownership", *OPS_CONCEPTS]
        assert [s.memory_id for s in _timeline(app).chain.steps] == [plain]


async def test_help_and_palette_of_the_chain_screen(home):
    app = create_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("c")
        await settle(pilot)
        titles = {command.title for command in app.get_system_commands(app.screen)}
        assert {"Open", "Current", "Value", "Chains", "Timeline", "Close"} <= titles
        await pilot.press("f1")
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)
        assert "## Temporal chains" in app.screen.markdown
        assert "Move to the chain's current value" in app.screen.markdown


async def test_forks_and_lowered_confidence_are_drawn(tmp_path):
    home = tmp_path / "home" / ".amplihack"
    with HierarchicalMemory("tester", home / "hierarchical_memory" / "tester") as memory:
        for value, turn in ((3, 1), (4, 2), (5, 2), (7, 5)):
            memory.store_knowledge(f"checkout-api runs {value} replicas", "checkout-api replicas",
                                   temporal_metadata={"temporal_index": turn})  # fmt: skip
    app = create_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("c")
        await settle(pilot)
        table = app.screen.query_one("#chains", DataTable)
        assert str(table.get_row_at(0)[3]) == "⑂⋯▼"
        options = _timeline(app).options
        first, last = str(options[0].prompt), str(options[-1].prompt)
        assert "⑂ fork: replaced by 2 newer facts" in first
        assert "▼ confidence lowered from 0.80" in first
        assert "⋯ gap: 2 turns missing before this one" in last
        assert "Updated values: 7 vs 4 · index 2 -> 5" in last


async def test_a_store_without_chains_fails_in_the_error_modal(home):
    app = create_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        sqlite = home / "memory" / "ops-agent" / "experiences.db"
        app.push_screen(ChainScreen(app.session, sqlite, "ops-agent"))
        await settle(pilot, failures=(InvalidInputError,))
        assert isinstance(app.screen, ErrorModal)
        assert "This store has no temporal chains" in app.screen.message
