"""Snapshots at 120x36 of the duplicates screen and a merge's preview, on a home
holding the planted store (tests/merge/planted.py) at a fixed path."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import SIZE, keys, private_root
from merge.planted import AGENT, build_graph_store

from memexplorer.app.explorer_app import create_app

#: The path the snapshots show for this run's planted home.
SHOWN_PLANTED = "/tmp/memexplorer-snapshot-planted"


@pytest.fixture
def planted_home() -> Iterator[Path]:
    for root in private_root(SHOWN_PLANTED):
        home = root / "home" / ".amplihack"
        build_graph_store(home / "hierarchical_memory" / AGENT / "kuzu_db")
        yield home


def test_duplicates_at_a_lower_threshold(snap_compare, planted_home):
    # 0.70: the Database pair (0.8) and the deploy-region group, the newest group first.
    app = create_app(planted_home)
    run = keys("d", "left_square_bracket", "left_square_bracket", "left_square_bracket", "down")
    assert snap_compare(app, terminal_size=SIZE, run_before=run)


def test_merge_preview(snap_compare, planted_home):
    # Keep a2 (k on the second fact), then m: the two SUPERSEDES edges the library writes.
    app = create_app(planted_home)
    assert snap_compare(app, terminal_size=SIZE, run_before=keys("d", "enter", "down", "k", "m"))


def test_a_fact_left_out_of_the_merge(snap_compare, planted_home):
    # space on a2: its mark is [ ] and its content struck through; a3 (kept) and a1 stay in.
    app = create_app(planted_home)
    assert snap_compare(app, terminal_size=SIZE, run_before=keys("d", "enter", "down", "space"))
