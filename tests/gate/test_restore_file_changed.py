"""A whole-store restore renames its copy over the store only if no one wrote to the
store while the copy was being made; otherwise the store keeps what was written."""

from __future__ import annotations

import shutil

import pytest
from store_helpers import checksums

from memexplorer.operator import store_backup
from memexplorer.operator.backups import restore_backup
from memexplorer.operator.browse import open_browser
from memexplorer.operator.store_backup import write_store_backup
from memexplorer.storage.exceptions import StoreChangedError

HOME = "home/.amplihack"
GRAPH = f"{HOME}/hierarchical_memory/ops-agent/kuzu_db"


def test_restore_refuses_to_replace_a_store_written_meanwhile(reference_stores, monkeypatch):
    store = reference_stores / GRAPH
    browser = open_browser(store, writable=True)
    try:
        record = write_store_backup(reference_stores / HOME, browser, action="console-write",
                                    kind="hierarchical")  # fmt: skip
    finally:
        browser.close()
    real_copy = shutil.copyfile

    def copy_while_an_agent_writes(source, target, **kwargs):
        real_copy(source, target, **kwargs)
        if ".restore-" in str(target):  # the staged copy, not the backup's
            store.with_name(store.name + ".wal").write_bytes(b"an agent's change")

    monkeypatch.setattr(store_backup.shutil, "copyfile", copy_while_an_agent_writes)
    with pytest.raises(StoreChangedError, match=r"kuzu_db\.wal appeared"):
        restore_backup(record.path)
    after = checksums(store.parent)
    assert after["kuzu_db.wal"]  # the agent's change is still there
    assert not [name for name in after if ".restore-" in name]  # the copy was removed
    assert not (record.path / "restored.json").exists()
