"""The app on the demo home: every store kind and agent in the tree (a snapshot at 120x36).

Only the tree is shown: its counts are the same every build, where table rows
carry ids and timestamps that change.
"""

from __future__ import annotations

import fcntl
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import SIZE, keys

from memexplorer.app import create_app
from memexplorer.engine.demo import write_demo_home

#: The snapshot shows the opened path, so the demo is built at a path that never changes.
DEMO_ROOT = Path("/tmp/memexplorer-snapshot-demo")
#: Test runs on one machine share that path: each holds this lock while it uses it.
LOCK = Path("/tmp/memexplorer-snapshot-demo.lock")


@pytest.fixture(scope="module")
def demo_home() -> Iterator[Path]:
    with LOCK.open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        shutil.rmtree(DEMO_ROOT, ignore_errors=True)
        yield write_demo_home(DEMO_ROOT / ".amplihack")


def test_main_screen_on_the_demo_home(snap_compare, demo_home):
    # Expand the cognitive store's agent: all six memory types and their edges.
    app = create_app(demo_home)
    assert snap_compare(app, terminal_size=SIZE, run_before=keys("down", "enter"))
