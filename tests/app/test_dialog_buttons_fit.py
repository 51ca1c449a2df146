"""At 80x24 a confirm's buttons stay on screen however long what it lists: the
redaction of every finding of the demo home named eight stores, and its Redact and
Cancel buttons fell below the dialog's edge (y and escape worked, unseen)."""

from __future__ import annotations

from pathlib import Path

from conftest import settle
from merge.planted import AGENT, REGION, build_graph_store
from textual.widgets import Button, Input

from memexplorer.app.explorer_app import create_app
from memexplorer.app.screens.audit_screen import AuditScreen
from memexplorer.app.screens.clean_modal import CleanModal
from memexplorer.app.screens.import_modal import ImportModal
from memexplorer.app.screens.merge_modal import MergeModal
from memexplorer.app.screens.redact_modal import RedactModal
from memexplorer.app.widgets.stores_tree import StoresTree
from memexplorer.operator.demo import write_demo_home
from memexplorer.operator.transfer import export_agent_store
from memexplorer.storage.graph_open import open_graph_store


def _shown(button: Button) -> bool:
    """The whole button is inside the part of the dialog that is drawn."""
    seen = button.region.intersection(button.screen.find_widget(button).clip)
    return seen == button.region and button.region.height > 0


async def _redact_every_finding(pilot) -> None:
    """From the stores screen: the audit, then redact of every finding."""
    await settle(pilot)
    await pilot.press("a")
    await settle(pilot)
    assert isinstance(pilot.app.screen, AuditScreen)
    await pilot.press("a", "d")  # every finding, then redact
    await settle(pilot)


async def test_redact_of_every_finding_shows_its_buttons_at_80x24(tmp_path: Path):
    home = write_demo_home(tmp_path / ".amplihack")
    app = create_app(home)
    async with app.run_test(size=(80, 24)) as pilot:
        await _redact_every_finding(pilot)
        modal = app.screen
        assert isinstance(modal, RedactModal) and len(modal.changes) > 5
        for button in modal.query(Button):
            assert _shown(button), (button.id, button.region)
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, AuditScreen)


async def test_the_question_is_shown_from_its_first_line(tmp_path: Path):
    home = write_demo_home(tmp_path / ".amplihack")
    app = create_app(home)
    async with app.run_test(size=(80, 24)) as pilot:
        await _redact_every_finding(pilot)
        body = app.screen.query_one("#body")
        assert body.max_scroll_y > 0 and body.scroll_y == 0  # it scrolls, from the top


async def test_clean_of_every_session_shows_its_buttons_at_80x24(tmp_path: Path):
    home = write_demo_home(tmp_path / ".amplihack")
    store = home / "memory.db"
    app = create_app(home)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        tree = app.screen.query_one(StoresTree)
        tree.move_cursor(next(n for n in tree.root.children if n.data.entry.path == store))
        tree.focus()
        await pilot.press("delete")  # every session ("*") to start with
        await settle(pilot)
        modal = app.screen
        assert isinstance(modal, CleanModal) and modal.preview is not None
        for button in modal.query(Button):
            assert _shown(button), (button.id, button.region)


async def test_import_preview_shows_its_buttons_and_its_change_at_80x24(tmp_path: Path):
    home = write_demo_home(tmp_path / ".amplihack")
    source = tmp_path / "ops.json"
    export_agent_store("ops-agent", source, home=home)
    app = create_app(home)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        tree = app.screen.query_one(StoresTree)
        ops = home / "hierarchical_memory" / "ops-agent" / "graph_db"
        tree.move_cursor(next(n for n in tree.root.children if n.data.entry.path == ops))
        tree.focus()
        await pilot.press("i")
        await settle(pilot)
        modal = app.screen
        assert isinstance(modal, ImportModal)
        modal.query_one("#source", Input).value = str(source)
        await pilot.press("enter")
        await settle(pilot)
        assert modal.preview is not None
        for button in modal.query(Button):
            assert _shown(button), (button.id, button.region)
        change = modal.query_one("#change")  # what the import will do, in sight too
        assert str(change.render()).startswith("REPLACE")
        assert change.region.intersection(modal.find_widget(change).clip) == change.region


async def test_merge_of_a_large_group_shows_its_buttons_at_80x24(tmp_path: Path):
    """Twenty more copies of the planted deploy-region fact: one group of 23, whose
    merge adds 22 SUPERSEDES edges; the table's rows pushed Merge and Cancel out."""
    home = tmp_path / "home" / ".amplihack"
    store = build_graph_store(home / "hierarchical_memory" / AGENT / "kuzu_db")
    with open_graph_store(store, read_only=False) as graph:
        for index in range(4, 24):
            graph.execute(
                "CREATE (:SemanticMemory {memory_id: $id, concept: 'deploy region', "
                "content: $content, confidence: 0.5, source_id: '', agent_id: $agent, "
                "tags: '[\"deploy\"]', metadata: '{}', created_at: $at, entity_name: ''})",
                {"id": f"a{index}", "content": REGION, "agent": AGENT,
                 "at": f"2026-04-{index:02d}T10:00:00"},
            )  # fmt: skip
    app = create_app(home)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("d")
        await settle(pilot)
        await pilot.press("enter", "m")
        await settle(pilot)
        modal = app.screen
        assert isinstance(modal, MergeModal) and modal.plan is not None
        assert len(modal.plan.edges) >= 20
        for button in modal.query(Button):
            assert _shown(button), (button.id, button.region)
        summary = modal.query_one("#merge-summary")  # what it will do, in sight too
        assert summary.region.intersection(modal.find_widget(summary).clip) == summary.region
        await pilot.press("escape")
        await settle(pilot)
        assert not isinstance(app.screen, MergeModal)
