"""A read-only open that meets a writer's checkpoint under way waits for it.

A writer closing a kuzu store (an undo's restore, the agent itself) checkpoints;
for those milliseconds a read-only open fails with "Couldn't replay shadow pages
under read-only mode". The app's export after an undo met it. The store is not
damaged and a moment later it opens, so a read-only open tries again until the
checkpoint is over; a write open, and a checkpoint that never ends, still fail.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from memexplorer.storage import graph_open
from memexplorer.storage.exceptions import CheckpointInProgressError, StoreLockedError
from memexplorer.storage.graph_open import open_graph_store
from memexplorer.storage.graph_store import translate_open_error

KUZU_WORDS = (
    "Runtime exception: Couldn't replay shadow pages under read-only mode. "
    "Please re-open the database with read-write mode to replay shadow pages."
)


def _make_store(path: Path) -> None:
    store = open_graph_store(path, read_only=False, create="kuzu")
    try:
        store.execute("CREATE NODE TABLE Fact(id STRING, PRIMARY KEY(id))")
        store.execute("CREATE (:Fact {id: $id})", {"id": "f1"})
    finally:
        store.close()


class _CheckpointFor:
    """Stands in for KuzuStore: the first ``failures`` opens meet a checkpoint."""

    def __init__(self, failures: int) -> None:
        self.failures = failures
        self.calls: list[bool] = []
        self.real = graph_open.KuzuStore

    def __call__(self, path: Path, *, read_only: bool, **options: Any) -> Any:
        self.calls.append(read_only)
        if len(self.calls) <= self.failures:
            raise translate_open_error(path, KUZU_WORDS, "kuzu")
        return self.real(path, read_only=read_only, **options)


def test_the_engine_words_become_a_checkpoint_error() -> None:
    error = translate_open_error(Path("/s/graph_db"), KUZU_WORDS, "kuzu")
    assert isinstance(error, CheckpointInProgressError)
    assert isinstance(error, StoreLockedError)  # callers that catch "in use" still do


def test_a_read_only_open_waits_for_the_checkpoint(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "graph_db"
    _make_store(path)
    engine = _CheckpointFor(failures=3)
    monkeypatch.setattr(graph_open, "KuzuStore", engine)
    store = open_graph_store(path)
    try:
        assert store.rows("MATCH (f:Fact) RETURN f.id") == [["f1"]]
    finally:
        store.close()
    assert engine.calls == [True, True, True, True]


def test_a_write_open_does_not_wait(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "graph_db"
    _make_store(path)
    engine = _CheckpointFor(failures=1)
    monkeypatch.setattr(graph_open, "KuzuStore", engine)
    with pytest.raises(CheckpointInProgressError):
        open_graph_store(path, read_only=False)
    assert engine.calls == [False]


def test_a_checkpoint_that_never_ends_is_reported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "graph_db"
    _make_store(path)
    engine = _CheckpointFor(failures=10**6)
    monkeypatch.setattr(graph_open, "KuzuStore", engine)
    monkeypatch.setattr(graph_open, "CHECKPOINT_WAIT_S", 0.3)
    started = time.monotonic()
    with pytest.raises(CheckpointInProgressError, match="checkpoint is unfinished"):
        open_graph_store(path)
    assert time.monotonic() - started >= 0.3
    assert len(engine.calls) >= 2
