"""Writing to an older LadybugDB store would rewrite its file in the installed
storage version: the app says so, keeps the file unchanged until the operator
agrees, then saves a copy of the file before upgrading; the copy restores it."""

from __future__ import annotations

import gzip
import os
from importlib.util import find_spec
from pathlib import Path

import pytest
from conftest import SIZE, settle

from memexplorer.app.explorer_app import create_app
from memexplorer.app.screens.writing_modal import WritingModal
from memexplorer.app.widgets.stores_tree import StoresTree
from memexplorer.operator.backup_records import list_backups
from memexplorer.operator.backups import restore_backup
from memexplorer.storage.stores import sniff

pytestmark = pytest.mark.skipif(
    find_spec("ladybug") is None and not os.environ.get("CI"),
    reason="needs the ladybug extra: pip install 'memexplorer[ladybug]'",
)

#: A LadybugDB store written by ladybug 0.21.2 (storage version 47).
OLD = Path(__file__).parent.parent / "engine" / "data" / "ladybug_v47.lbug.gz"


async def _ask_to_write(pilot, store: Path) -> WritingModal:
    tree = pilot.app.screen.query_one(StoresTree)
    tree.move_cursor(next(n for n in tree.root.children if n.data.entry.path == store))
    tree.focus()
    await pilot.press("w")
    await settle(pilot)
    modal = pilot.app.screen
    assert isinstance(modal, WritingModal)
    await pilot.press("y")
    await settle(pilot)
    return modal


async def test_an_older_ladybug_store_is_upgraded_only_when_asked_and_backed_up(tmp_path):
    home = tmp_path / ".amplihack"
    store = home / "old-agent" / "ladybug_db"
    store.parent.mkdir(parents=True)
    store.write_bytes(gzip.decompress(OLD.read_bytes()))
    before = store.read_bytes()
    app = create_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        modal = await _ask_to_write(pilot, store)
        # Asked again, about the upgrade; nothing written yet.
        assert app.screen is modal and modal.upgrade is not None
        assert (modal.upgrade.found, modal.upgrade.installed) == (47, 49)
        assert "storage version 47 to 49" in str(modal.query_one("#question").render())
        assert not app.session.browsers.writing(store) and store.read_bytes() == before
        await pilot.press("escape")
        await settle(pilot)
        assert store.read_bytes() == before and not list_backups(home)
        modal = await _ask_to_write(pilot, store)
        await pilot.press("y")
        await settle(pilot)
        assert app.session.browsers.writing(store)
    assert sniff(store).storage_version == 49  # rewritten by the time it is closed
    [backup] = list_backups(home)
    assert backup.action == "upgrade"
    assert (backup.path / "store.ladybug").read_bytes() == before
    restored = restore_backup(backup.path)
    assert restored.whole_store and store.read_bytes() == before
