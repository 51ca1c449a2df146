"""Snapshots at 120x36 of the operator modals on a copy of the reference stores, in
states that do not depend on the clock (previews before anything is written)."""

from __future__ import annotations

from datetime import date

from conftest import SIZE, keys, settle

from memexplorer.app.explorer_app import create_app
from memexplorer.app.screens.backups_screen import BackupsScreen
from memexplorer.app.screens.export_modal import ExportModal
from memexplorer.app.screens.import_modal import ImportModal


def _ops_store(home):
    return home / "hierarchical_memory" / "ops-agent" / "kuzu_db"


def test_clean_preview_of_a_row(snap_compare, snapshot_home):
    # ops-agent's SemanticMemory open, delete on its first row: the preview, unconfirmed.
    app = create_app(snapshot_home)
    steps = keys("down", "enter", "down", "down", "enter", "delete")
    assert snap_compare(app, terminal_size=SIZE, run_before=steps)


def test_export_modal(snap_compare, snapshot_home):
    app = create_app(snapshot_home)

    async def run(pilot):
        await settle(pilot)
        app.push_screen(ExportModal(app.session, "ops-agent", _ops_store(snapshot_home),
                                    today=date(2025, 1, 31)))  # fmt: skip
        await settle(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=run)


def test_import_preview(snap_compare, snapshot_home, snapshot_root):
    app = create_app(snapshot_home)
    source = snapshot_root / "exports" / "research-agent.export_to_json.json"

    async def run(pilot):
        await settle(pilot)
        app.push_screen(
            ImportModal(app.session, "ops-agent", _ops_store(snapshot_home), str(source))
        )
        await settle(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=run)


def test_backups_screen_without_backups(snap_compare, snapshot_home):
    app = create_app(snapshot_home)

    async def run(pilot):
        await settle(pilot)
        app.push_screen(BackupsScreen(app.session, snapshot_home))
        await settle(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=run)
