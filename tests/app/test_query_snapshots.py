"""Snapshots of the query box at 120x36, on a copy of the reference stores at a fixed path."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import SIZE, keys

from memexplorer.app import create_app

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
