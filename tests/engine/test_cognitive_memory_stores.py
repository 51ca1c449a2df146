"""CognitiveMemory on disk: sharing a path, persistence, bad paths, the reference store."""

from __future__ import annotations

import hashlib
import struct
import threading
from datetime import datetime
from importlib.util import find_spec

import pytest

from memexplorer.memory.cognitive_memory import CognitiveMemory
from memexplorer.storage.exceptions import (
    AgentNameError,
    CorruptStoreError,
    NotAStoreError,
    ReadOnlyStoreError,
    SchemaMismatchError,
    StoreLockedError,
    StoreNotFoundError,
    UnsupportedEngineError,
)
from memexplorer.storage.shared_graph import open_count

from .test_stores import held_by_another_process

COGNITIVE = "cognitive_db"
HIERARCHICAL = "home/.amplihack/hierarchical_memory/ops-agent/kuzu_db"


def _digest(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _fill(memory: CognitiveMemory, tag: str) -> None:
    memory.record_sensory("text", f"{tag} saw something", ttl_seconds=3600)
    memory.push_working("goal", f"{tag} goal", "task")
    memory.store_episode(f"{tag} episode", "log")
    memory.store_fact(f"{tag} concept", f"{tag} shared words about deployments")
    memory.store_procedure(f"{tag} procedure", ["step"])
    memory.store_prospective(f"{tag} intention", "deployments", "act")


# -- construction -----------------------------------------------------------------------
@pytest.mark.parametrize("name", ["", "   ", None])
def test_blank_agent_name(tmp_path, name):
    with pytest.raises(ValueError, match="agent_name") as raised:
        CognitiveMemory(name, tmp_path / "db")
    assert isinstance(raised.value, AgentNameError)
    assert not (tmp_path / "db").exists()


def test_creates_parent_dirs_and_the_store(tmp_path):
    path = tmp_path / "a" / "b" / "cognitive_db"
    with CognitiveMemory("  agent  ", path) as memory:
        assert path.exists() and not memory.read_only
        assert memory.agent_name == "agent" and memory.db_path == path


# -- several agents on one path ---------------------------------------------------------
def test_agents_on_one_path_at_once_see_only_their_own(tmp_path):
    path = tmp_path / "shared_db"
    a = CognitiveMemory("agent-a", path)
    b = CognitiveMemory("agent-b", path)
    try:
        assert open_count(path) == 2
        _fill(a, "alpha")
        _fill(b, "beta")
        b.push_working("goal", "beta second goal", "task")
        for memory, own, other in ((a, "alpha", "beta"), (b, "beta", "alpha")):
            texts = [
                *(s.raw_data for s in memory.get_recent_sensory()),
                *(s.content for s in memory.get_working("task")),
                *(e.content for e in memory.get_episodes()),
                *(f.content for f in memory.get_all_facts()),
                *(f.content for f in memory.search_facts("deployments")),
                *(f.content for f in memory.search_facts("")),
                *(p.name for p in memory.recall_procedure("")),
                *(p.description for p in memory.list_prospective()),
            ]
            assert texts and all(own in t for t in texts) and not any(other in t for t in texts)
            fired = memory.check_triggers("deployments")
            assert [p.description for p in fired] == [f"{own} intention"]
        assert a.get_statistics()["working"] == 1 and b.get_statistics()["working"] == 2
        assert a.get_statistics()["total"] == 6 and b.get_statistics()["total"] == 7
        assert a.clear_working("task") == 1 and len(b.get_working("task")) == 2
    finally:
        a.close()
        b.close()
    assert open_count(path) == 0


def test_reader_sees_another_agents_later_writes(tmp_path, reference_stores):
    path = reference_stores / COGNITIVE
    reader = CognitiveMemory("ops-agent", path)
    writer = CognitiveMemory("new-agent", path)
    try:
        assert reader.read_only and writer.read_only
        writer.store_fact("late", "written after the reader opened")
        assert not reader.read_only  # one database per file per process, now read-write
        assert reader.get_statistics()["semantic"] == 10
        assert writer.get_statistics() == {**dict.fromkeys(
            ("sensory", "working", "episodic", "procedural", "prospective"), 0),
            "semantic": 1, "total": 1}  # fmt: skip
    finally:
        writer.close()
        reader.close()


def test_threads_writing_through_shared_handles(tmp_path):
    path = tmp_path / "db"
    memories = [CognitiveMemory(f"agent-{i}", path) for i in range(4)]
    errors: list[BaseException] = []

    def work(memory):
        try:
            for n in range(10):
                memory.store_episode(f"{memory.agent_name} event {n}", "log")
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(m,)) for m in memories]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    for memory in memories:
        episodes = memory.get_episodes(limit=50)
        assert sorted(e.temporal_index for e in episodes) == list(range(1, 11))
        memory.close()


def test_persists_after_close_and_reopen(tmp_path):
    path = tmp_path / "db"
    with CognitiveMemory("keeper", path) as memory:
        _fill(memory, "kept")
        fact = memory.store_fact("kept", "tagged", tags=["x"], temporal_metadata={"k": 1})
        before = memory.get_statistics()
    with CognitiveMemory("keeper", path) as memory:
        assert memory.read_only  # reading does not take the write lock
        assert memory.get_statistics() == before
        assert next(f for f in memory.get_all_facts() if f.node_id == fact).tags == ["x"]
        assert memory.store_episode("after reopen", "log")
        assert memory.get_episodes()[0].temporal_index == 2


def test_closed_memory_refuses_calls(tmp_path):
    memory = CognitiveMemory("a", tmp_path / "db")
    memory.close()
    memory.close()
    with pytest.raises(ReadOnlyStoreError, match="closed"):
        memory.get_statistics()


def test_read_mode(tmp_path):
    with pytest.raises(StoreNotFoundError):
        CognitiveMemory("a", tmp_path / "missing", mode="read")
    assert not (tmp_path / "missing").exists()
    CognitiveMemory("a", tmp_path / "db").close()
    with CognitiveMemory("a", tmp_path / "db", mode="read") as memory:
        with pytest.raises(ReadOnlyStoreError):
            memory.store_fact("c", "x")
        assert memory.search_facts("x") == []


# -- bad files --------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("content", "error"),
    [
        (b"hello, not a database", NotAStoreError),
        (b"", NotAStoreError),
        # ladybug (when installed) finds no database behind the header.
        (
            b"LBUG" + struct.pack("<Q", 41) + b"\0" * 64,
            CorruptStoreError if find_spec("ladybug") else UnsupportedEngineError,
        ),
    ],
)
def test_file_that_is_not_a_kuzu_store(tmp_path, content, error):
    path = tmp_path / "thing"
    path.write_bytes(content)
    with pytest.raises(error):
        CognitiveMemory("agent", path)
    assert path.read_bytes() == content
    assert open_count(path) == 0


def test_truncated_store(tmp_path, reference_stores):
    path = tmp_path / "truncated"
    path.write_bytes((reference_stores / COGNITIVE).read_bytes()[:5000])
    before = _digest(path)
    with pytest.raises(CorruptStoreError):
        CognitiveMemory("ops-agent", path)
    assert _digest(path) == before


def test_hierarchical_store_is_named(reference_stores):
    path = reference_stores / HIERARCHICAL
    before = _digest(path)
    with pytest.raises(SchemaMismatchError, match="HierarchicalMemory"):
        CognitiveMemory("ops-agent", path)
    assert _digest(path) == before


def test_store_locked_by_another_process(reference_stores):
    """Our refused open changes no byte. The digests are taken while the other
    process holds the store: its own read-write close may checkpoint the file (the
    digest taken before it opened differed once in CI, from its writes, not ours)."""
    path = reference_stores / COGNITIVE
    with held_by_another_process(path, "rw"):
        before = _digest(path)
        with pytest.raises(StoreLockedError):
            CognitiveMemory("ops-agent", path)
        assert _digest(path) == before


def test_first_write_refused_while_another_process_reads(reference_stores):
    path = reference_stores / COGNITIVE
    before = _digest(path)
    with held_by_another_process(path, "ro"), CognitiveMemory("ops-agent", path) as memory:
        with pytest.raises(StoreLockedError):
            memory.store_fact("new", "refused")
        assert memory.read_only
        assert memory.get_statistics()["semantic"] == 10
    assert _digest(path) == before


# -- the reference library's store ------------------------------------------------------
def test_reference_store_reads_per_agent_unchanged(reference_stores, manifest):
    path = reference_stores / COGNITIVE
    before = _digest(path)
    entry = manifest["databases"][COGNITIVE]
    nodes = entry["inventory"]["node_tables"]
    with CognitiveMemory("ops-agent", path) as memory:
        assert memory.read_only
        stats = memory.get_statistics()
        assert stats == entry["generation_log"]["statistics"]
        assert stats["semantic"] == nodes["SemanticMemory"]["per_agent"]["ops-agent"]
        facts = memory.get_all_facts(limit=100)
        assert len(facts) == 10 and all(f.node_id.startswith("sem_") for f in facts)
        assert all(isinstance(f.created_at, datetime) and f.tags for f in facts)
        assert memory.search_facts("checkout-api latency")[0].concept == "checkout-api latency"
        sensory = memory.get_recent_sensory(limit=20)
        assert {s.node_id for s in sensory} == {
            "sen_81abd703db8c",
            "sen_83f657ab0f81",
            "sen_ffe8d28d7bc4",
        }  # fmt: skip  (ttl 10 years; the 300 s and 1 s ones have expired)
        assert [len(memory.get_working(t)) for t in ("task-incident-review", "task-small")] == [
            20, 2,
        ]  # fmt: skip
        assert memory.get_working("task-cleared") == []
        episodes = memory.get_episodes(limit=50, include_compressed=True)
        assert sum(e.compressed for e in episodes) == 10 and len(memory.get_episodes(50)) == 6
        assert memory.get_consolidated()[0].node_id == "con_32e8537a8fd7"
        usage = {p.name: p.usage_count for p in memory.list_procedures()}
        assert usage == {n: c for _, n, c in entry["inventory"]["details"]["procedural_usage"]}
        statuses = [p.status for p in memory.list_prospective()]
        assert sorted(statuses) == ["pending"] * 4 + ["resolved", "triggered"]
        assert memory.check_triggers("nothing relevant here") == []
        assert memory.read_only
    with CognitiveMemory("someone-else", path, mode="read") as other:
        assert other.get_statistics()["total"] == 0
    assert _digest(path) == before


def test_reference_store_accepts_writes_in_a_copy(reference_stores):
    path = reference_stores / COGNITIVE
    with CognitiveMemory("ops-agent", path) as memory:
        fid = memory.store_fact("checkout-api latency", "p99 is 350ms now", confidence=0.9)
        assert not memory.read_only
        assert fid in {f.node_id for f in memory.search_facts("latency", limit=20)}
        assert memory.get_statistics()["semantic"] == 11
        columns = [name for name, _ in memory.graph.columns("SemanticMemory")]
        assert "embedding" in columns  # the reference's extra column is kept as it is
