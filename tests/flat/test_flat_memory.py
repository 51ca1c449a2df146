"""Flat session memory, both backends through one interface: expiry, dedup, paging, deletes."""

from __future__ import annotations

import os
import sqlite3
import stat

import pytest
from flat_stores import FILES, TYPES, copy_fixture
from store_helpers import checksums, held_by_another_process

from memexplorer.memory.flat_model import utc_now
from memexplorer.memory.flat_store import open_flat_store
from memexplorer.memory.flat_tree import build_flat_tree
from memexplorer.memory.inspection import summarize_store
from memexplorer.storage.exceptions import (
    InvalidInputError,
    ReadOnlyStoreError,
    SchemaMismatchError,
    StoreLockedError,
    StoreNotFoundError,
    UnsupportedEngineError,
)
from memexplorer.storage.stores import find_stores

HIERARCHICAL = "home/.amplihack/hierarchical_memory/ops-agent/kuzu_db"


def test_duplicate_learning_is_suppressed(flat_store):
    assert flat_store.duplicate is None
    with open_flat_store((flat_store.backend, flat_store.path)) as store:
        assert store.count_memories() == len(flat_store.live_rows)


def test_expired_rows_never_appear_or_count(flat_store):
    with open_flat_store((flat_store.backend, flat_store.path)) as store:
        listed = {m.memory_id for m in store.list_memories()}
        assert listed == {flat_store.ids[row[2]] for row in flat_store.live_rows}
        assert not listed & flat_store.expired_ids
        assert store.agent_counts() == flat_store.agent_counts()
        sessions = {s.session_id: s.memory_count for s in store.list_sessions()}
        assert sessions == flat_store.session_counts()
        assert sessions["sess-gamma"] == 0
        beta = next(s for s in store.list_sessions() if s.session_id == "sess-beta")
        assert beta.agents == {"builder": 1, "reviewer": 2}
        for session, count in flat_store.session_counts().items():
            assert store.count_memories(session_id=session) == count
        tree = build_flat_tree(store)
    assert tree.agents == flat_store.agent_counts()
    in_tree = {m.memory_id for branch in tree.sessions for m in branch.memories}
    assert in_tree == listed


def test_filters_and_paging(flat_store):
    types = TYPES[flat_store.backend]
    with open_flat_store((flat_store.backend, flat_store.path)) as store:
        everything = store.list_memories()
        pages = [store.list_memories(limit=2, offset=start) for start in range(0, 8, 2)]
        assert [m.memory_id for page in pages for m in page] == [m.memory_id for m in everything]
        accessed = [m.accessed_at for m in everything]
        assert accessed == sorted(accessed, reverse=True)
        reviewer = store.list_memories(agent_id="reviewer")
        assert {m.content for m in reviewer} == {
            "Reviewed PR 91 for the memory seam",
            "Current goal: finish the audit",
        }
        decisions = store.list_memories(memory_type=types[2])
        assert {m.memory_type for m in decisions} == {types[2]}
        assert len(decisions) == store.count_memories(memory_type=types[2]) == 2
        alpha_arch = store.list_memories(session_id="sess-alpha", agent_id="architect")
        assert len(alpha_arch) == 2
        top = store.list_memories(session_id="sess-alpha", memory_type=types[0])
        back_pressure = next(m for m in top if "back-pressure" in m.content)
    assert back_pressure.importance == 9 and back_pressure.confidence == pytest.approx(0.8)
    assert back_pressure.tags == ["fixture"] and back_pressure.session_id == "sess-alpha"


def test_reading_changes_nothing(flat_store):
    before = checksums(flat_store.home)
    with open_flat_store((flat_store.backend, flat_store.path)) as store:
        store.list_sessions()
        store.list_memories(limit=3)
        store.agent_counts()
        with pytest.raises(ReadOnlyStoreError):
            store.store_session_learning("s", "a", "never written")
        with pytest.raises(ReadOnlyStoreError):
            store.delete_sessions(["sess-alpha"])
    summarize_store(flat_store.path)
    assert checksums(flat_store.home) == before


def test_bad_input_is_refused_before_writing(flat_store):
    bad = [
        {"session_id": "", "agent_id": "a", "content": "text"},
        {"session_id": "s", "agent_id": " ", "content": "text"},
        {"session_id": "s", "agent_id": "a", "content": "  "},
        {"session_id": "s", "agent_id": "a", "content": "text", "importance": 11},
        {"session_id": "s", "agent_id": "a", "content": "text", "confidence": 1.5},
        {"session_id": "s\x00", "agent_id": "a", "content": "text"},
    ]
    with open_flat_store((flat_store.backend, flat_store.path), read_only=False) as store:
        for kwargs in bad:
            with pytest.raises(InvalidInputError):
                store.store_session_learning(**kwargs)
        assert store.count_memories() == len(flat_store.live_rows)
        assert len(store.list_sessions()) == 3


def test_delete_sessions(flat_store):
    with open_flat_store((flat_store.backend, flat_store.path), read_only=False) as store:
        result = store.delete_sessions(["sess-alpha", "sess-gamma", "no-such-session"])
        assert sorted(result.sessions) == ["sess-alpha", "sess-gamma"]
        assert result.memories == 5
        assert [s.session_id for s in store.list_sessions()] == ["sess-beta"]
        assert store.agent_counts() == {"builder": 1, "reviewer": 2}
        assert store.delete_sessions(["sess-alpha"]).sessions == []


def test_new_store_is_private(tmp_path):
    for backend, name in FILES.items():
        home = tmp_path / backend / "home"
        with open_flat_store((backend, home / name), read_only=False) as store:
            assert store.store_session_learning("s1", "agent", "first learning") is not None
        assert stat.S_IMODE(os.stat(home / name).st_mode) == 0o600
        assert stat.S_IMODE(os.stat(home).st_mode) == 0o700


def test_missing_and_wrong_stores(tmp_path, reference_stores, flat_store):
    with pytest.raises(StoreNotFoundError):
        open_flat_store(("sqlite", tmp_path / "nothing.db"))
    other = "graph-db" if flat_store.backend == "sqlite" else "sqlite"
    with pytest.raises(UnsupportedEngineError):
        open_flat_store((other, flat_store.path))
    with pytest.raises(SchemaMismatchError):
        open_flat_store(("graph-db", reference_stores / HIERARCHICAL))
    experiences = reference_stores / "home/.amplihack/memory/ops-agent/experiences.db"
    with pytest.raises(SchemaMismatchError):
        open_flat_store(("sqlite", experiences))
    link = tmp_path / "link.db"
    link.symlink_to(flat_store.path)
    with pytest.raises(InvalidInputError, match="symlink"):
        open_flat_store((flat_store.backend, link))


def test_graph_types_are_checked(_pristine_flat, tmp_path):

    fixture = copy_fixture(_pristine_flat["graph-db"], tmp_path / "h")
    with open_flat_store(("graph-db", fixture.path), read_only=False) as store:
        with pytest.raises(InvalidInputError, match="not a graph-db memory type"):
            store.list_memories(memory_type="conversation")
        with pytest.raises(InvalidInputError, match="never expire"):
            store.store_session_learning("s", "a", "fact", expires_at=utc_now())
        assert store.list_memories(memory_type="learning") == store.list_memories(
            memory_type="semantic"
        )


def test_locked_graph_store(_pristine_flat, tmp_path):

    fixture = copy_fixture(_pristine_flat["graph-db"], tmp_path / "h")
    with held_by_another_process(fixture.path, "rw"), pytest.raises(StoreLockedError):
        open_flat_store(("graph-db", fixture.path))


def test_discovery_and_summaries_say_flat(_pristine_flat, tmp_path):

    home = tmp_path / ".amplihack"
    copy_fixture(_pristine_flat["graph-db"], home)
    sqlite = _pristine_flat["sqlite"]
    (home / "memory.db").write_bytes(sqlite.path.read_bytes())
    hierarchical = home / "hierarchical_memory"
    hierarchical.mkdir()
    agent_db = hierarchical / "ops-agent.db"
    with sqlite3.connect(agent_db) as db:
        db.execute("CREATE TABLE semantic_memory (memory_id TEXT PRIMARY KEY, agent_id TEXT)")
    found = {fmt.path.name: fmt.engine for fmt in find_stores(home)}
    assert found == {"memory.db": "sqlite", "memory_graph.db": "kuzu", "ops-agent.db": "sqlite"}
    expected = sqlite.agent_counts()
    flat_sqlite = summarize_store(home / "memory.db")
    assert flat_sqlite.kind == "flat"
    assert {a: c["memory_entries"] for a, c in flat_sqlite.agents.items()} == expected
    flat_graph = summarize_store(home / "memory_graph.db")
    assert flat_graph.kind == "flat"
    assert {a: sum(c.values()) for a, c in flat_graph.agents.items()} == expected
    assert flat_graph.agents["reviewer"] == {"EpisodicMemory": 1, "WorkingMemory": 1}
