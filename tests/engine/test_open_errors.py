"""What an engine's message on opening a store turns into: the operator's next step
depends on it (retry, or restore from a backup)."""

from __future__ import annotations

from pathlib import Path

import pytest
from store_helpers import held_by_another_process

from memexplorer.storage.exceptions import CorruptStoreError, StoreLockedError
from memexplorer.storage.graph_store import translate_open_error
from memexplorer.storage.graphdb import KuzuStore

STORE = Path("/home/op/.amplihack/hierarchical_memory/ops-agent/graph_db")


def test_an_unfinished_checkpoint_is_not_called_damage() -> None:
    # Kuzu 0.11.3's words, seen when a read-only open met a restore's checkpoint.
    text = (
        "Runtime exception: Couldn't replay shadow pages under read-only mode. "
        "Please re-open the database with read-write mode to replay shadow pages."
    )
    error = translate_open_error(STORE, text, "kuzu")
    assert isinstance(error, StoreLockedError) and not isinstance(error, CorruptStoreError)
    assert "checkpoint is unfinished" in str(error)
    assert "Retry in a moment" in error.hint and "Restore it from a backup" not in error.hint


def test_a_damaged_file_still_says_restore_from_a_backup() -> None:
    text = "Runtime exception: Reading past the end of the file"
    error = translate_open_error(STORE, text, "kuzu")
    assert isinstance(error, CorruptStoreError)
    assert "Restore it from a backup" in error.hint


def test_a_reader_elsewhere_is_not_called_a_writer(tmp_path) -> None:
    """Kuzu readers share the lock: a store held read-only elsewhere opens here
    read-only, and refuses a writing open with an error that does not blame a
    writer; held for writing elsewhere, a read-only open names the writer."""
    store = tmp_path / "kuzu_db"
    KuzuStore(store, read_only=False).close()
    with held_by_another_process(store, "ro"):
        KuzuStore(store).close()
        with pytest.raises(StoreLockedError) as refused:
            KuzuStore(store, read_only=False)
    assert "has this store open, so it cannot be opened for writing" in str(refused.value)
    assert "for writing" not in refused.value.hint.split(".")[0]
    assert "another memexplorer" in refused.value.hint
    with held_by_another_process(store, "rw"), pytest.raises(StoreLockedError) as held:
        KuzuStore(store)
    assert "holds this store for writing" in str(held.value)
