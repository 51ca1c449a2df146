"""The app on the demo home: every store kind and agent in the tree (a snapshot at 120x36).

Only the tree is shown: its counts are the same every build, where table rows
carry ids and timestamps that change.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import SIZE, keys, private_root, settle

from memexplorer.app.explorer_app import create_app
from memexplorer.app.widgets.stores_tree import AgentItem, StoresTree
from memexplorer.operator.demo import write_demo_home

#: The snapshot shows the opened path: the demo is built in a folder of this run's
#: own, and the snapshot shows this path in its place (see private_root).
SHOWN_DEMO = "/tmp/memexplorer-snapshot-demo"


@pytest.fixture(scope="module")
def demo_home() -> Iterator[Path]:
    for root in private_root(SHOWN_DEMO):
        yield write_demo_home(root / ".amplihack")


def test_main_screen_on_the_demo_home(snap_compare, demo_home):
    # Expand the cognitive store's agent: all six memory types and their edges.
    app = create_app(demo_home)
    assert snap_compare(app, terminal_size=SIZE, run_before=keys("down", "enter"))


async def test_agent_counts_stay_whole_at_80_columns(demo_home):
    """At 80x24 the tree pane is about 30 cells: an agent's name gives up its end
    ("research-age…"), never its count (was "research-agent  18 recor")."""
    app = create_app(demo_home)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        tree = app.screen.query_one(StoresTree)
        room = tree.scrollable_content_region.width
        drawn_agents, shortened = 0, 0
        for line in range(tree.last_line + 1):
            node = tree.get_node_at_line(line)
            if node is None or not isinstance(node.data, AgentItem):
                continue
            full = node.label.plain
            count = full[full.index("  ") :]  # "  18 records", as the store counted
            drawn = tree.render_line(line).text.rstrip()
            assert drawn.endswith(count), (drawn, count)
            assert len(drawn) <= room, drawn
            assert drawn.count("…") == (len(full) + 5 > room), drawn  # a guide 3, the icon 2
            drawn_agents += 1
            shortened += "…" in drawn
        assert drawn_agents >= 9
        assert shortened >= 3
