"""A merge and its undo are the app's own writes: a look of the store watch between
the write and its answer (here forced, as a loaded machine makes it happen) must
not call them a change on disk (the tmux merge test failed on that under load)."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import SIZE, settle
from merge.planted import AGENT, build_graph_store

from memexplorer.app.explorer_app import create_app
from memexplorer.app.screens import merge_modal
from memexplorer.app.screens.duplicates_screen import DuplicatesScreen
from memexplorer.operator import backups


@pytest.fixture
def planted_home(tmp_path: Path) -> Path:
    home = tmp_path / "home" / ".amplihack"
    build_graph_store(home / "hierarchical_memory" / AGENT / "kuzu_db")
    return home


def _look_after(app, write):  # type: ignore[no-untyped-def]
    """``write``, then the store watch's periodic look, before the answer is posted."""

    def written(*args, **kwargs):  # type: ignore[no-untyped-def]
        result = write(*args, **kwargs)
        app.call_from_thread(app.check_stores)
        return result

    return written


def _notices(app) -> list[str]:  # type: ignore[no-untyped-def]
    return [str(n.message) for n in app._notifications]


async def test_a_look_during_a_merge_and_its_undo_sees_no_change(planted_home, monkeypatch):
    app = create_app(planted_home)
    monkeypatch.setattr(merge_modal, "merge_facts", _look_after(app, merge_modal.merge_facts))
    monkeypatch.setattr(backups, "restore_backup", _look_after(app, backups.restore_backup))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        store = planted_home / "hierarchical_memory" / AGENT / "kuzu_db"
        assert store in app.session.store_watch.paths  # the look does watch this store
        await pilot.press("d")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, DuplicatesScreen)
        await pilot.press("m")
        await settle(pilot)
        await pilot.press("y")
        await settle(pilot)
        assert screen.last_merge is not None
        await pilot.press("u")
        await settle(pilot)
        assert any(n.startswith("merge taken back") for n in _notices(app))
        assert not any("changed on disk" in n for n in _notices(app)), _notices(app)
        assert app.session.changed_stores == [] and app.session.writes_under_way == set()
