"""What is on disk is named before anything opens it; bad paths get clear errors."""

from __future__ import annotations

import hashlib
import os
import shutil
import struct
import subprocess
import sys

import pytest
from store_helpers import held_by_another_process

from memexplorer.memory.hierarchical_memory import HierarchicalMemory
from memexplorer.memory.inspection import open_graph, summarize_store
from memexplorer.storage.exceptions import (
    CorruptStoreError,
    NotAStoreError,
    StoreLockedError,
    StoreNotFoundError,
    UnsupportedEngineError,
)
from memexplorer.storage.stores import resolve_hierarchical_path, sniff

OPS = "home/.amplihack/hierarchical_memory/ops-agent/kuzu_db"


def _digest(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_sniff_reads_headers(reference_stores):
    fmt = sniff(reference_stores / OPS)
    assert (fmt.engine, fmt.storage_version) == ("kuzu", 39)
    experiences = reference_stores / "home/.amplihack/memory/ops-agent/experiences.db"
    assert sniff(experiences).engine == "sqlite"


def test_ladybug_file_is_named(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "ladybug", None)  # as when the extra is not installed
    path = tmp_path / "lbug"
    path.write_bytes(b"LBUG" + struct.pack("<Q", 41) + b"\0" * 64)
    with pytest.raises(UnsupportedEngineError) as raised:
        open_graph(path)
    assert "LadybugDB" in str(raised.value) and "41" in str(raised.value)
    assert "pip install" in raised.value.hint
    assert path.read_bytes()[:4] == b"LBUG"


def test_other_kuzu_storage_version_is_refused(tmp_path, reference_stores):
    path = tmp_path / "old"
    data = bytearray((reference_stores / OPS).read_bytes())
    data[4:12] = struct.pack("<Q", 38)
    path.write_bytes(bytes(data))
    with pytest.raises(UnsupportedEngineError, match="storage version 38"):
        open_graph(path)


@pytest.mark.parametrize(
    ("make", "error"),
    [
        (lambda p: p.write_bytes(b""), NotAStoreError),
        (lambda p: p.write_bytes(os.urandom(4096)), NotAStoreError),
        (lambda p: p.write_text("hello"), NotAStoreError),
        (lambda p: p.mkdir(), NotAStoreError),
    ],
)
def test_not_a_store(tmp_path, make, error):
    path = tmp_path / "thing"
    make(path)
    with pytest.raises(error):
        summarize_store(path)
    with pytest.raises(StoreNotFoundError if path.is_dir() else error):
        HierarchicalMemory("agent", path, mode="read")
    assert not (path / "kuzu_db").exists()


def test_missing_path(tmp_path):
    with pytest.raises(StoreNotFoundError):
        summarize_store(tmp_path / "nope")
    with pytest.raises(StoreNotFoundError):
        HierarchicalMemory("agent", tmp_path / "nope", mode="read")
    assert not (tmp_path / "nope").exists()


@pytest.mark.parametrize("keep", [5000, 0.5])
def test_truncated_store(reference_stores, tmp_path, keep):
    data = (reference_stores / OPS).read_bytes()
    path = tmp_path / "truncated"
    path.write_bytes(data[: int(keep if keep > 1 else len(data) * keep)])
    before = _digest(path)
    with pytest.raises(CorruptStoreError):
        summarize_store(path)
    assert _digest(path) == before


def test_locked_store_says_so(reference_stores):
    path = reference_stores / OPS
    with held_by_another_process(path, "rw"), pytest.raises(StoreLockedError) as raised:
        summarize_store(path)
    assert "Another process" in str(raised.value)
    assert "Stop that process" in raised.value.hint


def test_resolve_prefers_graph_db(tmp_path, reference_stores):
    agent = tmp_path / "agent"
    agent.mkdir()
    shutil.copy(reference_stores / OPS, agent / "kuzu_db")
    assert resolve_hierarchical_path(agent) == agent / "kuzu_db"
    shutil.copy(reference_stores / OPS, agent / "graph_db")
    assert resolve_hierarchical_path(agent) == agent / "graph_db"
    assert resolve_hierarchical_path(tmp_path / "new") == tmp_path / "new"
    empty = tmp_path / "empty"
    empty.mkdir()
    assert resolve_hierarchical_path(empty) == empty / "kuzu_db"


def test_file_named_after_agent_layout(reference_stores, monkeypatch):
    monkeypatch.setenv("HOME", str(reference_stores / "home_fresh_default"))
    with HierarchicalMemory("fresh-agent", mode="read") as memory:
        assert memory.db_path.name == "fresh-agent" and memory.db_path.is_file()
        assert memory.get_statistics()["semantic_nodes"] == 2


WRITER = """
import sys
from memexplorer.memory.hierarchical_memory import HierarchicalMemory
memory = HierarchicalMemory("crash", sys.argv[1])
for number in range(5):
    memory.store_knowledge(f"fact number {number} about queues", "queues")
memory.store_episode("an episode that stays in the WAL", "test")
print("ready", flush=True)
sys.stdin.read()
"""


def test_store_left_with_a_wal_reads_without_changes(tmp_path):
    path = tmp_path / "store"
    writer = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(path)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        text=True,
    )  # fmt: skip
    assert writer.stdout.readline().strip() == "ready"
    writer.kill()
    writer.wait()
    assert (tmp_path / "store.wal").exists()
    before = {p.name: _digest(p) for p in tmp_path.iterdir()}
    with HierarchicalMemory("crash", path, mode="read") as memory:
        assert memory.get_statistics()["semantic_nodes"] == 5
        assert memory.get_statistics()["episodic_nodes"] == 1
    assert summarize_store(path).agents["crash"]["SemanticMemory"] == 5
    assert {p.name: _digest(p) for p in tmp_path.iterdir()} == before


def test_first_write_refused_while_another_process_reads(reference_stores):
    path = reference_stores / OPS
    before = _digest(path)
    with held_by_another_process(path, "ro"), HierarchicalMemory("ops-agent", path) as memory:
        with pytest.raises(StoreLockedError):
            memory.store_knowledge("checkout-api runs 99 replicas", "checkout-api replicas")
        assert memory.read_only
        assert memory.get_statistics()["semantic_nodes"] == 84
    assert _digest(path) == before
