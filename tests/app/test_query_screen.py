"""Pilot tests of the query box: the reference retrievals, every key, the reasons and
marks shown, the LLM context, history across app instances, the shared store."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest
from conftest import SIZE, settle

from memexplorer.app.explorer_app import create_app
from memexplorer.app.screens.error_modal import ErrorModal
from memexplorer.app.screens.help_screen import HelpScreen
from memexplorer.app.screens.main_screen import MainScreen
from memexplorer.app.screens.node_detail_screen import NodeDetailScreen
from memexplorer.app.screens.query_screen import QueryScreen
from memexplorer.app.widgets.context_pane import ContextPane
from memexplorer.app.widgets.history_list import HistoryList
from memexplorer.app.widgets.node_table import NodeTable
from memexplorer.app.widgets.query_results import QueryResults
from memexplorer.app.widgets.stores_tree import AgentItem, StoresTree
from memexplorer.operator.query_history import HistoryEntry, HistoryError, QueryHistory, data_folder
from memexplorer.storage.exceptions import ReadOnlyStoreError

STORES = {
    "ops-agent": "home/.amplihack/hierarchical_memory/ops-agent/kuzu_db",
    "research-agent": "home/.amplihack/hierarchical_memory/research-agent/kuzu_db",
    "support-bot": "home/.amplihack/hierarchical_memory/support-bot/kuzu_db",
    "triage-bot": "shared_two_agents/kuzu_db",
    "escalation-bot": "shared_two_agents/kuzu_db",
}


@pytest.fixture(autouse=True)
def data_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test gets its own user data folder: the real history is never touched."""
    folder = tmp_path / "xdg-data"
    monkeypatch.setenv("XDG_DATA_HOME", str(folder))
    return folder


def record_notes(app) -> list[str]:
    """Every notification the app shows from now on."""
    notes: list[str] = []
    shown = app.notify

    def notify(message, **kwargs):
        notes.append(f"{kwargs.get('title', '')}: {message}")
        shown(message, **kwargs)

    app.notify = notify
    return notes


async def open_query(pilot, agent: str, store: Path) -> QueryScreen:
    """Put the tree's cursor on the agent of ``store`` and press q."""
    tree = pilot.app.screen.query_one(StoresTree)
    node = next(
        child for entry in tree.root.children for child in entry.children
        if isinstance(child.data, AgentItem) and child.data.agent == agent
        and child.data.entry.path == store
    )  # fmt: skip
    tree.focus()
    tree.move_cursor(node)
    await pilot.press("q")
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, QueryScreen)
    assert (screen.agent, screen.store) == (agent, store)
    return screen


async def use_profile(pilot, screen: QueryScreen, profile: str) -> None:
    """Press p (outside the query box) until the profile is ``profile``."""
    screen.results.focus()
    for _ in range(3):
        if screen.profile == profile:
            return
        await pilot.press("p")
        await settle(pilot)
    assert screen.profile == profile


async def ask(pilot, screen: QueryScreen, text: str) -> QueryResults:
    await pilot.press("slash")
    screen.query_one("#query").value = ""
    await pilot.press(*text, "enter")
    await settle(pilot)
    return screen.results


def reference_cases(agent: str, stores: Path, expected: dict) -> list[tuple[str, list[str]]]:
    """(query, node ids that must be shown) for an agent.

    expected_retrieval.json has queries for the three single-agent stores only, with
    the library's node ids in its order. For
    the two agents sharing one store, each concept of the agent (from its
    reference export) is a query, and every fact with that concept must be shown:
    each is a keyword match, and no agent there has more than 20 facts.
    """
    if agent in expected["agents"]:
        return [(case["query"], case["node_ids"]) for case in expected["agents"][agent]]
    name = f"shared_two_agents.{agent}.export_to_json.json"
    facts = json.loads((stores / "exports" / name).read_text())["semantic_nodes"]
    assert 0 < len(facts) <= 20
    concepts = sorted({fact["concept"] for fact in facts})
    return [(c, [f["memory_id"] for f in facts if f["concept"] == c]) for c in concepts]


@pytest.mark.parametrize("agent", sorted(STORES))
async def test_every_reference_query_shows_the_reference_nodes(
    agent, reference_stores, expected_retrieval
):
    store = reference_stores / STORES[agent]
    cases = reference_cases(agent, reference_stores, expected_retrieval)
    assert len(cases) >= 3
    app = create_app(reference_stores)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = await open_query(pilot, agent, store)
        for query, must_show in cases:
            results = await ask(pilot, screen, query)
            assert results.subgraph is not None and results.subgraph.query == query
            shown = results.shown_ids()
            if agent in expected_retrieval["agents"]:
                assert shown == must_show, query  # the library's ids, in its order
            else:
                assert set(must_show) <= set(shown), query
            assert len(shown) <= 20
            agents = {n.node_id: n for n in results.subgraph.nodes}
            assert set(shown) == set(agents)
            owners = app.session.browsers.get(store).graph.rows(
                "MATCH (m:SemanticMemory) WHERE m.memory_id IN $ids RETURN DISTINCT m.agent_id",
                {"ids": shown},
            )
            assert owners == [[agent]], query


async def test_reasons_chain_marks_edges_and_context(home):
    app = create_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        store = home / STORES["ops-agent"].split("/", 2)[2]
        screen = await open_query(pilot, "ops-agent", store)
        await use_profile(pilot, screen, "ranked")
        results = await ask(pilot, screen, "checkout-api replicas")
        assert results.has_focus
        graph = results.subgraph
        labels = {str(n.data): str(n.label) for n in results.root.children if n.data}
        reasons = {
            str(n.data): [str(leaf.label) for leaf in n.children]
            for n in results.root.children if n.data
        }  # fmt: skip
        for node in graph.nodes:
            assert len(reasons[node.node_id]) == len(node.metadata["retrieved_because"])
            if node.metadata.get("superseded"):
                assert f"superseded by {node.metadata['superseded_by'][:8]}" in labels[node.node_id]
            if node.metadata.get("chain_position"):
                assert node.metadata["chain_position"] in labels[node.node_id]
        assert any(n.metadata.get("superseded") for n in graph.nodes)
        lines = [line for why in reasons.values() for line in why]
        assert "why: keyword terms checkout-api, replicas" in lines
        assert any(line.startswith("why: similar to ") and " weight 0." in line for line in lines)
        edges = results.root.children[-1]
        assert str(edges.label) == f"edges among them ({len(graph.edges)})"
        assert len(edges.children) == len(graph.edges) > 0
        assert screen.context.text == graph.to_llm_context()


async def test_similar_reason_names_its_origin(reference_stores):
    app = create_app(reference_stores)
    store = reference_stores / STORES["research-agent"]
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = await open_query(pilot, "research-agent", store)
        results = await ask(pilot, screen, "copper price")
        hops = [
            (node, reason) for node in results.subgraph.nodes
            for reason in node.metadata["retrieved_because"] if reason["kind"] == "similar_to"
        ]  # fmt: skip
        assert hops
        node, reason = hops[0]
        branch = next(n for n in results.root.children if n.data == node.node_id)
        text = " ".join(str(leaf.label) for leaf in branch.children)
        assert f"similar to {reason['from'][:8]}" in text
        assert f"weight {reason['weight']:.2f}" in text


async def test_keys_order_copy_max_nodes_threshold_and_focus(home):
    app = create_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = await open_query(pilot, "ops-agent", home / STORES["ops-agent"].split("/", 2)[2])
        assert screen.query_one("#query").has_focus
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, MainScreen)
        screen = await open_query(pilot, "ops-agent", home / STORES["ops-agent"].split("/", 2)[2])
        await pilot.press("enter")  # an empty query runs nothing
        await settle(pilot)
        assert screen.answer is None
        await use_profile(pilot, screen, "ranked")  # the knobs below are ranked's
        results = await ask(pilot, screen, "checkout-api replicas")
        notes = record_notes(app)
        await pilot.press("c")
        assert notes == [": Copied the LLM context to the clipboard"]
        graph = results.subgraph
        assert app.clipboard == graph.to_llm_context()
        await pilot.press("t")
        assert screen.chronological
        assert screen.context.text == graph.to_llm_context(chronological=True)
        assert "chronological" in screen.context.border_title
        await pilot.press("c")
        assert app.clipboard == graph.to_llm_context(chronological=True)
        await pilot.press("t")
        assert screen.context.text == graph.to_llm_context()
        assert len(graph.nodes) == 20
        await pilot.press("minus")
        await settle(pilot)
        assert screen.max_nodes == 10 and len(results.subgraph.nodes) == 10
        await pilot.press("minus", "minus")
        await settle(pilot)
        assert screen.max_nodes == 1 and results.shown_ids() == [results.subgraph.nodes[0].node_id]
        await pilot.press("minus")
        assert screen.max_nodes == 1
        await pilot.press("plus", "plus", "plus", "plus")
        await settle(pilot)
        assert screen.max_nodes == 30 and len(results.subgraph.nodes) > 20
        assert "max 30 nodes" in str(screen.query_one("#settings").render())
        await pilot.press("right_square_bracket")
        await settle(pilot)
        assert screen.threshold == 0.35 and screen.request.threshold == 0.35
        await pilot.press("left_square_bracket", "left_square_bracket")
        await settle(pilot)
        assert screen.request.threshold == 0.25
        for _ in range(16):
            await pilot.press("right_square_bracket")
        await settle(pilot)
        assert screen.threshold == 1.0
        kinds = {r["kind"] for n in results.subgraph.nodes for r in n.metadata["retrieved_because"]}
        assert "similar_to" not in kinds
        await pilot.press("h")
        assert screen.query_one(HistoryList).has_focus
        await pilot.press("x")
        assert screen.query_one(ContextPane).has_focus
        await pilot.press("r")
        assert results.has_focus
        await pilot.press("slash")
        assert screen.query_one("#query").has_focus


async def test_copy_before_any_query_says_so(home):
    app = create_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = await open_query(pilot, "ops-agent", home / STORES["ops-agent"].split("/", 2)[2])
        notes = record_notes(app)
        await pilot.press("tab")  # out of the query box, to the history
        assert screen.query_one(HistoryList).has_focus
        await pilot.press("r")
        assert screen.results.has_focus
        await pilot.press("c")
        assert app.clipboard == ""
        assert screen.answer is None
        assert notes == [": Nothing to copy yet: run a query first"]


async def test_open_a_result_and_come_back(home):
    app = create_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = await open_query(pilot, "ops-agent", home / STORES["ops-agent"].split("/", 2)[2])
        results = await ask(pilot, screen, "grafana")
        first = results.shown_ids()[0]
        await pilot.press("o")
        await settle(pilot)
        assert isinstance(app.screen, NodeDetailScreen)
        assert (app.screen.ref.table, app.screen.ref.key) == ("SemanticMemory", first)
        assert app.screen.detail.properties["memory_id"] == first
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen is screen
        await pilot.press("down", "down", "enter")  # the second fact, by enter
        await settle(pilot)
        assert isinstance(app.screen, NodeDetailScreen)
        assert app.screen.ref.key == results.shown_ids()[1]


async def test_q_uses_the_open_tables_agent_and_refuses_other_kinds(reference_stores):
    app = create_app(reference_stores)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        main = app.screen
        notes = record_notes(app)
        tree = main.query_one(StoresTree)
        agents = [
            c for s in tree.root.children for c in s.children if isinstance(c.data, AgentItem)
        ]
        support = next(a for a in agents if a.data.agent == "support-bot")
        tree.move_cursor(support)
        await pilot.press("enter")
        await settle(pilot)
        await pilot.press("down", "enter")  # its first table, which takes the keyboard
        await settle(pilot)
        assert main.query_one(NodeTable).source.agent == "support-bot"
        tree.move_cursor(next(a for a in agents if a.data.agent == "ops-agent"))
        await pilot.press("r", "q")
        await settle(pilot)
        assert isinstance(app.screen, QueryScreen) and app.screen.agent == "support-bot"
        await pilot.press("escape")
        await settle(pilot)
        for kind, said in (("experience", "an experience"), ("cognitive", "a cognitive")):
            other = next(a for a in agents if a.data.entry.kind == kind)
            tree.focus()
            tree.move_cursor(other)
            await pilot.press("q")
            await settle(pilot)
            assert app.screen is main
            assert f"is {said} store" in notes[-1] and "hierarchical" in notes[-1]
            assert notes[-1].startswith("No retrieval here: ")


async def test_history_survives_restarts_and_narrows_as_you_type(home, data_home):
    store = home / STORES["ops-agent"].split("/", 2)[2]
    for text in ("grafana", "checkout-api replicas", "payments-db storage"):
        app = create_app(home)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            screen = await open_query(pilot, "ops-agent", store)
            await ask(pilot, screen, text)
    path = data_home / "memexplorer" / "query_history.jsonl"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert [set(line) for line in lines] == [{"query", "agent", "store"}] * 3
    assert lines[0] == {"query": "grafana", "agent": "ops-agent", "store": str(store)}
    app = create_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = await open_query(pilot, "ops-agent", store)
        history = screen.query_one(HistoryList)
        assert [e.query for e in history.shown] == [
            "payments-db storage",
            "checkout-api replicas",
            "grafana",
        ]
        await pilot.press(*"CHECK")
        assert [e.query for e in history.shown] == ["checkout-api replicas"]
        assert history.option_count == 1
        await pilot.press("backspace", "backspace", "backspace", "backspace", "backspace")
        assert history.option_count == 3
        await pilot.press("tab", "down", "down", "enter")  # the second newest, again
        await settle(pilot)
        assert screen.request.text == "checkout-api replicas"
        assert screen.query_one("#query").value == "checkout-api replicas"
        assert screen.results.subgraph.query == "checkout-api replicas"
        # Running it again moved it to the newest place, once.
        assert [e.query for e in QueryHistory().load()][-1] == "checkout-api replicas"
        assert len(QueryHistory().load()) == 3


async def test_history_is_per_agent_and_store(reference_stores):
    shared = reference_stores / STORES["triage-bot"]
    app = create_app(reference_stores)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = await open_query(pilot, "triage-bot", shared)
        await ask(pilot, screen, "anything at all")
        await pilot.press("escape")
        await settle(pilot)
        screen = await open_query(pilot, "escalation-bot", shared)
        assert screen.query_one(HistoryList).shown == []
        assert len(QueryHistory().load()) == 1


async def test_help_and_palette_have_the_query_commands(home):
    app = create_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = await open_query(pilot, "ops-agent", home / STORES["ops-agent"].split("/", 2)[2])
        await pilot.press("tab", "f1")
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)
        assert "## The query box" in app.screen.markdown
        assert "| `+` | More nodes |" in app.screen.markdown
        await pilot.press("escape")
        await settle(pilot)
        titles = [c.title for c in app.get_system_commands(screen)]
        assert {"Time order", "Copy", "More nodes", "Threshold up"} <= set(titles)


async def test_the_memory_reads_through_the_browsers_store(reference_stores):
    shared = reference_stores / STORES["triage-bot"]
    app = create_app(reference_stores)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        browser = app.session.browsers.get(shared)
        triage = app.session.memories.get(shared, "triage-bot")
        escalation = app.session.memories.get(shared, "escalation-bot")
        assert triage.graph is browser.graph is escalation.graph
        assert app.session.memories.get(shared, "triage-bot") is triage
        assert triage.read_only
        with pytest.raises(ReadOnlyStoreError):
            triage.store_knowledge("never written", "test")
        triage.close()  # leaves the browser's store open
        assert browser.graph.scalar("MATCH (n:SemanticMemory) RETURN count(n)") > 0
        app.session.browsers.close_all()  # a reload: the next memory is on the new store
        again = app.session.memories.get(shared, "triage-bot")
        assert again is not triage and again.graph is app.session.browsers.get(shared).graph
        assert again.retrieve_subgraph("escalation").query == "escalation"


def test_history_file_is_capped_private_and_skips_bad_lines(data_home):
    history = QueryHistory(limit=3)
    assert history.path == data_folder() / "query_history.jsonl"
    assert history.path.is_relative_to(data_home)
    for number in range(5):
        history.add(HistoryEntry(f"query {number}", "agent", "/store"))
    assert [e.query for e in history.load()] == ["query 2", "query 3", "query 4"]
    assert stat.S_IMODE(history.path.parent.stat().st_mode) == 0o700
    with history.path.open("a") as out:
        out.write('not json\n{"query": 5, "agent": "a", "store": "s"}\n["x"]\n')
    assert len(history.load()) == 3
    assert QueryHistory.matching(history.load(), "QUERY 3") == [history.load()[1]]


def test_data_folder_without_xdg(monkeypatch, tmp_path):
    monkeypatch.delenv("XDG_DATA_HOME")
    monkeypatch.setenv("HOME", str(tmp_path))
    assert data_folder() == tmp_path / ".local" / "share" / "memexplorer"
    monkeypatch.setenv("XDG_DATA_HOME", "relative/is/ignored")
    assert data_folder() == tmp_path / ".local" / "share" / "memexplorer"


def test_an_unwritable_history_is_a_clear_error(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    history = QueryHistory(blocker / "history.jsonl")
    with pytest.raises(HistoryError, match=r"Cannot read .*Not a directory"):
        history.add(HistoryEntry("q", "a", "s"))
    with pytest.raises(HistoryError, match="Cannot write "):
        history._write([HistoryEntry("q", "a", "s")])


async def test_an_unusable_history_ends_in_the_error_modal_and_queries_still_run(home, data_home):
    data_home.write_text("a file where the data folder should be")
    app = create_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        tree = app.screen.query_one(StoresTree)
        tree.move_cursor(tree.root.children[0].children[0])
        await pilot.press("q")
        await settle(pilot, failures=(HistoryError,))
        assert isinstance(app.screen, ErrorModal)  # loading the history failed
        assert app.screen.error_title == "Query history unavailable"
        assert "Cannot read" in app.screen.message
        await pilot.press("escape")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, QueryScreen)
        await pilot.press(*"grafana", "enter")
        await settle(pilot, failures=(HistoryError,))
        assert isinstance(app.screen, ErrorModal)  # and saving it
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen is screen and len(screen.results.shown_ids()) == 2
