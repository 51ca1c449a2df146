"""Every store the engine creates is 0o600 in 0o700 folders (seed 002), and the
agent's hierarchical store is checked again whenever the engine opens it to write;
opening to read never changes a mode or a byte.

Other kinds of file are covered where they are written: exports and import-made
stores in tests/test_cli_transfer.py, import stages and backups in
tests/test_import_safety.py, query and console histories in
tests/app/test_query_screen.py, the write lock in tests/engine/test_write_gate.py.
"""

from __future__ import annotations

import os
import stat
from importlib.util import find_spec
from pathlib import Path

import pytest

from memexplorer.memory.hierarchical_memory import HierarchicalMemory
from memexplorer.memory.store import ExperienceStore
from memexplorer.storage.graph_open import open_graph_store


def _mode(path: Path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def test_a_new_hierarchical_store_is_private_with_its_folders(tmp_path):
    home = tmp_path / "new-home"
    store = home / "hierarchical_memory" / "bot" / "kuzu_db"
    with HierarchicalMemory("bot", store) as memory:
        memory.store_fact("sky", "The sky is blue.")
    assert _mode(store) == 0o600
    for folder in (store.parent, store.parent.parent, home):
        assert _mode(folder) == 0o700, folder


def test_writing_opens_tighten_the_agent_store_reading_ones_do_not(tmp_path):
    store = tmp_path / "home" / "hierarchical_memory" / "bot" / "kuzu_db"
    with HierarchicalMemory("bot", store) as memory:
        memory.store_fact("sky", "The sky is blue.")
    os.chmod(store, 0o644)
    os.chmod(store.parent, 0o755)
    before = store.read_bytes()
    with HierarchicalMemory("bot", store, mode="read") as memory:
        assert memory.get_all_knowledge()
    assert (_mode(store), _mode(store.parent)) == (0o644, 0o755)
    assert store.read_bytes() == before
    with HierarchicalMemory("bot", store, mode="write"):
        pass
    assert (_mode(store), _mode(store.parent)) == (0o600, 0o700)


def test_a_folder_outside_the_agent_layout_is_the_operators(tmp_path):
    folder = tmp_path / "operator"
    folder.mkdir(mode=0o755)
    os.chmod(folder, 0o755)
    store = folder / "bot.kuzu"
    with HierarchicalMemory("bot", store) as memory:
        memory.store_fact("sky", "The sky is blue.")
    assert (_mode(store), _mode(folder)) == (0o600, 0o755)


@pytest.mark.parametrize("engine", ["kuzu", "ladybug"])
def test_a_graph_store_created_by_open_graph_store_is_private(tmp_path, engine):
    if engine == "ladybug" and find_spec("ladybug") is None and not os.environ.get("CI"):
        pytest.skip("needs the ladybug extra")
    store = tmp_path / "made" / "here" / "store"
    open_graph_store(store, read_only=False, create=engine).close()
    assert _mode(store) == 0o600
    assert _mode(store.parent) == _mode(store.parent.parent) == 0o700


@pytest.mark.parametrize("backend", ["sqlite", "kuzu"])
def test_a_new_experience_store_is_private(tmp_path, backend):
    folder = tmp_path / "experiences"
    with ExperienceStore("bot", storage_path=folder, backend=backend):
        pass
    files = [p for p in folder.rglob("*") if p.is_file()]
    assert files, "the store wrote a file"
    assert {_mode(p) for p in files} == {0o600}, files
    assert _mode(folder) == 0o700
