"""Snapshots of the query box at 120x36, on a copy of the reference stores at a fixed path."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import SIZE, keys

from memexplorer.app.explorer_app import create_app

# The cursor starts on the ops-agent store (one agent): q opens its query box.
ASK = ("q", *"checkout-api replicas", "enter")


@pytest.fixture(autouse=True)
def data_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty history for each snapshot, never the user's."""
    folder = tmp_path / "xdg-data"
    monkeypatch.setenv("XDG_DATA_HOME", str(folder))
    return folder


def test_query_results_and_context(snap_compare, snapshot_home):
    app = create_app(snapshot_home)
    assert snap_compare(app, terminal_size=SIZE, run_before=keys(*ASK))


def test_query_chronological_context_with_fewer_nodes(snap_compare, snapshot_home):
    app = create_app(snapshot_home)
    press = (*ASK, "t", "minus", "x")
    assert snap_compare(app, terminal_size=SIZE, run_before=keys(*press))


def test_query_help(snap_compare, snapshot_home):
    app = create_app(snapshot_home)
    assert snap_compare(app, terminal_size=SIZE, run_before=keys("q", "f1"))


def test_query_missed_facts_with_the_step_that_cut_them(snap_compare, snapshot_home):
    app = create_app(snapshot_home)
    press = ("q", *"Who owns checkout-api?", "enter")
    assert snap_compare(app, terminal_size=SIZE, run_before=keys(*press))


def test_query_why_this_one(snap_compare, snapshot_home):
    app = create_app(snapshot_home)
    assert snap_compare(app, terminal_size=SIZE, run_before=keys(*ASK, "w"))


def test_query_why_not_a_missed_fact(snap_compare, snapshot_home):
    app = create_app(snapshot_home)
    press = ("q", *"Who owns checkout-api?", "enter", "m", "w")
    assert snap_compare(app, terminal_size=SIZE, run_before=keys(*press))


def test_query_profile_switched_to_amplihack_rs(snap_compare, snapshot_home):
    app = create_app(snapshot_home)
    assert snap_compare(app, terminal_size=SIZE, run_before=keys(*ASK, "p"))


@pytest.mark.parametrize("size", [(80, 24), (200, 50)], ids=["80x24", "200x50"])
def test_query_results_at_other_sizes(snap_compare, snapshot_home, size):
    """Nothing that matters is cut at 80×24; 200×50 uses the room."""
    app = create_app(snapshot_home)
    assert snap_compare(app, terminal_size=size, run_before=keys(*ASK))
