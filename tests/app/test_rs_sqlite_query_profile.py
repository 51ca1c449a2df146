"""The query box on amplihack-rs's SQLite store runs one profile, the agent's own
(amplihack-rs): library and ranked read graph stores. Before, ``p`` switched to
ranked there, every query then failed with an error naming a CLI option
(``--profile``), and the choice was kept for the store, so the box opened on it
failing again until ``p`` was pressed twice more (Pilot)."""

from __future__ import annotations

from conftest import SIZE, settle

from memexplorer.app.explorer_app import create_app
from memexplorer.app.profile_choices import ProfileChoices
from memexplorer.app.screens.query_screen import QueryScreen

FOLDER = "home/.amplihack/hierarchical_memory"
#: Worked out by hand in tests/rust_sqlite/test_rs_query.py.
RESEARCH = ["res-sota-4", "res-f-1", "res-f-2", "res-f-3", "res-sota-1", "res-sota-2", "res-sota-3"]


async def _ask(pilot, screen: QueryScreen) -> list[str]:
    await pilot.press("slash")
    screen.query_one("#query").value = "RAG-Bench questions"  # "-" is not a key name
    await pilot.press("enter")
    await settle(pilot)
    return [n.node_id for n in screen.results.subgraph.nodes]


async def test_p_keeps_the_agents_own_profile_on_the_sqlite_store(rust_sqlite_home):
    store = rust_sqlite_home / FOLDER / "research-agent.db"
    app = create_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("q")  # the cursor is on the store, its only agent
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, QueryScreen) and screen.profile == "amplihack-rs"
        assert await _ask(pilot, screen) == RESEARCH
        await pilot.press("r")  # the results, so p is a key and not typed
        await pilot.press("p")
        await settle(pilot)  # fails on a query that ended in an error
        assert app.screen is screen and screen.profile == "amplihack-rs"
        assert [n.node_id for n in screen.results.subgraph.nodes] == RESEARCH
    assert ProfileChoices().get(store, "none kept") in ("none kept", "amplihack-rs")


async def test_a_graph_profile_kept_for_the_sqlite_store_is_not_used(rust_sqlite_home):
    store = rust_sqlite_home / FOLDER / "research-agent.db"
    ProfileChoices().set(store, "ranked")  # as p left it before
    app = create_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("q")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, QueryScreen) and screen.profile == "amplihack-rs"
        assert await _ask(pilot, screen) == RESEARCH
