"""The app on the demo home: every store kind and agent in the tree (a snapshot at 120x36).

Only the tree is shown: its counts are the same every build, where table rows
carry ids and timestamps that change.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import SIZE, keys, private_root

from memexplorer.app.explorer_app import create_app
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
