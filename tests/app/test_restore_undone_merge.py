"""A merge taken back already is not offered again: the Backups screen says so at once
(it asked "Take back the merge …?" and only after y failed with "Invalid input")."""

from __future__ import annotations

from pathlib import Path

from conftest import SIZE, settle
from merge.planted import AGENT, build_graph_store, dump

from memexplorer.app.explorer_app import create_app
from memexplorer.app.screens.backups_screen import BackupsScreen
from memexplorer.operator.backup_records import list_backups
from memexplorer.operator.backups import restore_backup
from memexplorer.operator.merge import merge_facts, preview_merge


async def test_a_merge_taken_back_is_not_asked_again(tmp_path: Path):
    home = tmp_path / "home" / ".amplihack"
    store = build_graph_store(home / "hierarchical_memory" / AGENT / "kuzu_db")
    result = merge_facts(preview_merge(store, AGENT, "a3", ["a2", "a1"]), home=home)
    restore_backup(result.backup.path)  # taken back once
    (record,) = list_backups(home)
    assert record.restored
    before = dump(store)
    app = create_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("b")
        await settle(pilot)
        assert isinstance(app.screen, BackupsScreen)
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, BackupsScreen)  # no confirm to say yes to
        notices = [str(n.message) for n in app._notifications]
        assert any("taken back already" in text and record.restored_at[:19] in text
                   for text in notices), notices  # fmt: skip
    assert dump(store) == before
