"""A cached release that does not start, or is not the release its marker names,
is never used to read: the store is refused with the command that repairs it."""

from __future__ import annotations

import json
import venv
from pathlib import Path

import pytest
from store_helpers import checksums

from memexplorer.storage.engine_cache import MARKER
from memexplorer.storage.exceptions import UnsupportedEngineError
from memexplorer.storage.graph_open import open_graph_store

REPAIR = "memexplorer engines remove ladybug==0.17.1, then memexplorer engines add ladybug==0.17.1"


def _cached_0171(cache: Path) -> Path:
    """A cache entry for ladybug 0.17.1 whose virtualenv holds no ladybug at all."""
    folder = cache / "ladybug-0.17.1"
    venv.EnvBuilder(with_pip=False).create(folder / "venv")
    marker = {"package": "ladybug", "release": "0.17.1", "storage_version": 41,
              "installed_at": "2026-11-25T00:00:00+00:00"}  # fmt: skip
    (folder / MARKER).write_text(json.dumps(marker))
    return folder


def test_a_release_that_does_not_start(crashed_writer, _private_engine_cache):
    _cached_0171(_private_engine_cache)
    before = checksums(crashed_writer.parent)
    with pytest.raises(UnsupportedEngineError) as raised:
        open_graph_store(crashed_writer)
    assert str(raised.value).startswith("The cached ladybug 0.17.1 does not start (")
    assert "No module named 'ladybug'" in str(raised.value)
    assert REPAIR in raised.value.hint
    assert checksums(crashed_writer.parent) == before


def test_a_venv_holding_another_release_than_its_marker(crashed_writer, _private_engine_cache):
    folder = _cached_0171(_private_engine_cache)
    [site] = (folder / "venv" / "lib").glob("python3*/site-packages")
    (site / "ladybug").mkdir()  # what a hand-changed virtualenv could hold
    (site / "ladybug" / "__init__.py").write_text('__version__ = "0.18.3"\nstorage_version = 42\n')
    before = checksums(crashed_writer.parent)
    with pytest.raises(UnsupportedEngineError) as raised:
        open_graph_store(crashed_writer)
    assert str(raised.value).startswith(
        "The cached ladybug 0.17.1 loaded ladybug 0.18.3 (storage version 42), not the "
        "release this store needs (storage version 41)"
    )
    assert REPAIR in raised.value.hint
    assert checksums(crashed_writer.parent) == before
