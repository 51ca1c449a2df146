"""The console on a LadybugDB store opens with the same example Cypher as on a
Kuzu store (it opened empty: the examples were keyed by engine and had no
``ladybug``), and the example runs there (Pilot)."""

from __future__ import annotations

import shutil

from conftest import SIZE, settle
from textual.widgets import TextArea

from memexplorer.app.explorer_app import create_app
from memexplorer.app.screens.console_screen import ConsoleScreen

EXAMPLE = "MATCH (n:SemanticMemory) RETURN n.concept, n.content, n.confidence LIMIT 20"


async def test_the_console_on_a_ladybug_store_opens_with_the_example(ladybug_stores, tmp_path):
    home = tmp_path / "home"
    shutil.copytree(ladybug_stores / "home/.amplihack", home)
    store = home / "hierarchical_memory/ops-agent/ladybug_db"
    app = create_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("colon")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ConsoleScreen) and screen.engine == "ladybug"
        assert screen.query_one(TextArea).text == EXAMPLE
        await pilot.press("ctrl+r")
        await settle(pilot)
        # ops-agent holds 84 facts (ladybug-MANIFEST.json): the LIMIT gives 20.
        assert screen.result.data.num_rows == 20
        assert screen.result.data.column_names == ["n.concept", "n.content", "n.confidence"]
