"""Where hierarchical stores live in each tool's layout (amplihack-rs transfer/paths.rs
``resolved_graph_db``, amplihack-memory-lib ``HierarchicalMemory.__init__``), one test
per rule; expected paths are read off the two codes, by hand."""

from __future__ import annotations

from pathlib import Path

import pytest

from memexplorer.operator.transfer_common import hierarchical_store_path
from memexplorer.storage.exceptions import InvalidInputError
from memexplorer.storage.store_layout import (
    home_layout,
    new_store_path,
    rust_resolved_graph_db,
)
from memexplorer.storage.stores import resolve_hierarchical_path


def _make(root: Path, *names: str) -> None:
    for name in names:
        path = root / name
        if name.endswith("/"):
            path.mkdir(parents=True, exist_ok=True)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(b"x")


@pytest.mark.parametrize("name", ["graph_db", "kuzu_db"])
def test_rust_a_base_named_like_a_store_is_the_store(tmp_path, name):
    assert rust_resolved_graph_db(tmp_path / name) == tmp_path / name


def test_rust_a_base_holding_kuzu_lock_is_the_store(tmp_path):
    _make(tmp_path, "agent/kuzu.lock", "agent/graph_db")
    assert rust_resolved_graph_db(tmp_path / "agent") == tmp_path / "agent"


@pytest.mark.parametrize(
    ("present", "expected"),
    [(("agent/kuzu_db",), "agent/kuzu_db"),
     (("agent/kuzu_db", "agent/graph_db/"), "agent/kuzu_db"),  # empty graph_db folder
     (("agent/kuzu_db", "agent/graph_db"), "agent/graph_db"),
     (("agent/kuzu_db", "agent/graph_db/data"), "agent/graph_db"),
     (("agent/",), "agent/graph_db")],
)  # fmt: skip
def test_rust_an_agent_folder(tmp_path, present, expected):
    _make(tmp_path, *present)
    assert rust_resolved_graph_db(tmp_path / "agent") == tmp_path / expected


def test_rust_a_missing_base_is_the_store_itself(tmp_path):
    assert rust_resolved_graph_db(tmp_path / "agent") == tmp_path / "agent"


def test_memexplorer_skips_an_empty_graph_db_folder_as_rust_does(tmp_path):
    _make(tmp_path, "agent/kuzu_db", "agent/graph_db/")
    assert resolve_hierarchical_path(tmp_path / "agent") == tmp_path / "agent/kuzu_db"
    _make(tmp_path, "agent/graph_db/data")
    assert resolve_hierarchical_path(tmp_path / "agent") == tmp_path / "agent/graph_db"


@pytest.mark.parametrize(
    ("present", "layout"),
    [((), "python"), (("hierarchical_memory/",), "python"),
     (("hierarchical_memory/a/graph_db",), "rust"),
     (("hierarchical_memory/a.db",), "rust"),
     (("hierarchical_memory/a",), "python"),
     (("hierarchical_memory/a/ladybug_db",), "python"),
     (("hierarchical_memory/a/kuzu_db",), "python")],
)  # fmt: skip
def test_home_layout_is_what_the_home_holds(tmp_path, present, layout):
    _make(tmp_path, *present)
    assert home_layout(tmp_path) == layout


def test_a_home_of_both_layouts_needs_a_choice(tmp_path):
    _make(tmp_path, "hierarchical_memory/a/graph_db", "hierarchical_memory/b")
    with pytest.raises(InvalidInputError, match="both layouts") as raised:
        home_layout(tmp_path)
    assert "--layout rust" in raised.value.hint
    assert home_layout(tmp_path, "python") == "python"


def test_new_store_paths(tmp_path):
    folder = tmp_path / "agent"
    assert new_store_path(folder, "rust", "ladybug") == folder / "graph_db"
    assert new_store_path(folder, "python", "ladybug") == folder  # the library's fresh home
    folder.mkdir()
    assert new_store_path(folder, "python", "ladybug") == folder / "ladybug_db"
    _make(folder, "lock")
    assert new_store_path(folder, "python", "kuzu") == folder


def test_a_new_store_in_a_home_follows_its_layout(tmp_path):
    home = tmp_path / "home"
    new = hierarchical_store_path("ops", home=home, engine="ladybug", new=True)
    assert new == home / "hierarchical_memory/ops"
    rust = hierarchical_store_path("ops", home=home, layout="rust", new=True)
    assert rust == home / "hierarchical_memory/ops/graph_db"
    _make(home, "hierarchical_memory/other/graph_db")
    assert hierarchical_store_path("ops", home=home, new=True) == rust
    # Without `new` (a reader), nothing is decided by layout.
    assert hierarchical_store_path("ops", home=home) == home / "hierarchical_memory/ops"
    storage = tmp_path / "elsewhere" / "ops"
    placed = hierarchical_store_path("ops", storage_path=storage, layout="rust", new=True)
    assert placed == storage  # what amplihack-rs opens for a missing --storage-path
