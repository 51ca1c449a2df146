"""Snapshot at 120x36 of the correct modal's preview (a library store, nothing written).

The new fact's id and time are fixed for the snapshot: everything else in the
preview is what the engine plans for the reference store."""

from __future__ import annotations

import dataclasses

import pytest
from conftest import SIZE, settle
from textual.widgets import Input

from memexplorer.app.explorer_app import create_app
from memexplorer.app.screens import correct_modal
from memexplorer.app.screens.node_detail_screen import NodeRef
from memexplorer.operator import correct_read

SEVEN = "9972a55b-1911-4f43-95c3-0e10251a1335"


def test_correct_preview(snap_compare, snapshot_home, monkeypatch: pytest.MonkeyPatch) -> None:
    def fixed(*args, **kwargs):
        wish = correct_read.correction_request(*args, **kwargs)
        return dataclasses.replace(wish, node_id="00000000-0000-4000-8000-000000000001",
                                   now_ns=1_764_000_000_000_000_000)  # fmt: skip

    monkeypatch.setattr(correct_modal, "correction_request", fixed)
    store = snapshot_home / "hierarchical_memory" / "ops-agent" / "kuzu_db"
    app = create_app(snapshot_home)

    async def run(pilot) -> None:
        await settle(pilot)
        app.open_node(NodeRef(store, "SemanticMemory", SEVEN))
        await settle(pilot)
        await pilot.press("e")
        await settle(pilot)
        app.screen.query_one("#content", Input).value = "checkout-api runs 8 replicas in production"
        await pilot.press("enter")
        await settle(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=run)
