"""The two Experience layouts: recognising them, seed 004's rules, reading seed-004 stores."""

from __future__ import annotations

import uuid
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from memexplorer.memory.connector import MemoryConnector
from memexplorer.memory.experience import ExperienceType
from memexplorer.memory.experience_layouts import AMPLIHACK_COLUMNS, SEED004_COLUMNS, detect_layout
from memexplorer.memory.inspection import summarize_store
from memexplorer.memory.seed004_record import Seed004Experience
from memexplorer.memory.seed004_store import (
    add_seed004,
    create_seed004_schema,
    followed_by,
    read_seed004,
    seed004_agent,
)
from memexplorer.storage.exceptions import InvalidExperienceError, SchemaMismatchError
from memexplorer.storage.graphdb import KuzuStore
from tests.store_helpers import checksums

T0 = datetime(2026, 3, 1, 9, 0, 0)


def record(**changes: object) -> Seed004Experience:
    fields: dict[str, object] = {
        "agent_id": "scout", "context": "disk filling on db-1", "action": "rotated logs",
        "outcome": "usage back to 40%", "importance": 7, "timestamp": T0,
    }  # fmt: skip
    fields.update(changes)
    return Seed004Experience(**fields)  # type: ignore[arg-type]


# -- recognising a layout --------------------------------------------------------------------


def test_detect_layout() -> None:
    assert detect_layout(AMPLIHACK_COLUMNS) == "amplihack"
    assert detect_layout(SEED004_COLUMNS) == "seed-004"
    assert detect_layout(["id", "agent_id", "context", "outcome"]) == "seed-004"
    assert detect_layout(["context"], tables=["Experience", "Agent"]) == "seed-004"
    assert detect_layout(["something", "else"]) == "unknown"


# -- seed 004's validation rules -------------------------------------------------------------


def test_valid_record_defaults() -> None:
    made = record()
    assert uuid.UUID(made.id)
    assert made.tags is None and made.metadata is None
    parsed = record(tags='["a", "b"]', metadata='{"k": 1}')
    assert parsed.tags == ["a", "b"] and parsed.metadata == {"k": 1}
    assert record(importance=1).importance == 1 and record(importance=10).importance == 10


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"id": "exp_20260301_090000_abcdef"}, "UUID"),
        ({"id": ""}, "UUID"),
        ({"agent_id": ""}, "agent_id"),
        ({"agent_id": "   "}, "agent_id"),
        ({"context": ""}, "context"),
        ({"action": ""}, "action"),
        ({"action": None}, "action"),
        ({"outcome": ""}, "outcome"),
        ({"timestamp": "2026-03-01"}, "timestamp"),
        ({"timestamp": None}, "timestamp"),
        ({"importance": 0}, "between 1 and 10"),
        ({"importance": 11}, "between 1 and 10"),
        ({"importance": 5.5}, "integer"),
        ({"importance": True}, "integer"),
        ({"tags": "not json"}, "tags"),
        ({"tags": '{"a": 1}'}, "array"),
        ({"tags": {"a": 1}}, "array"),
        ({"metadata": "[1, 2]"}, "object"),
        ({"metadata": "{broken"}, "metadata"),
    ],
)
def test_each_validation_rule(changes: dict[str, object], message: str) -> None:
    with pytest.raises(InvalidExperienceError, match=message) as info:
        record(**changes)
    assert isinstance(info.value, ValueError)


def test_to_experience() -> None:
    made = record(tags=["ops"], metadata={"experience_type": "failure", "host": "db-1"})
    experience = made.to_experience()
    assert experience.experience_id == made.id
    assert experience.experience_type is ExperienceType.FAILURE
    assert experience.context == made.context
    assert experience.outcome == "rotated logs -> usage back to 40%"
    assert experience.confidence == 0.7
    assert experience.timestamp == T0
    assert experience.tags == ["ops"]
    assert experience.metadata["action"] == "rotated logs"
    assert experience.metadata["importance"] == 7
    assert experience.metadata["host"] == "db-1"
    assert record().to_experience().experience_type is ExperienceType.INSIGHT
    long = record(context="c" * 700).to_experience()  # kept whole, as stored
    assert len(long.context) == 700


# -- seed-004 stores -------------------------------------------------------------------------


@pytest.fixture
def seed004_store(tmp_path: Path) -> Path:
    """A kuzu_db in seed 004's layout: scout has 3 experiences in a sequence, ranger 1."""
    path = tmp_path / "kuzu_db"
    with KuzuStore(path, read_only=False) as graph:
        create_seed004_schema(graph)
        first = add_seed004(graph, record())
        second = add_seed004(
            graph,
            record(context="disk filling on db-1", action="added volume", outcome="fixed for good",
                   importance=9, timestamp=T0 + timedelta(minutes=5), tags=["disk"]),
            follows=first,
        )  # fmt: skip
        add_seed004(
            graph,
            record(context="cpu spike on api", action="scaled out", outcome="latency normal",
                   importance=3, timestamp=T0 + timedelta(hours=1),
                   metadata={"experience_type": "success"}),
            follows=second,
        )  # fmt: skip
        add_seed004(graph, record(agent_id="ranger", context="ranger's own", importance=5))
    return path


def test_read_seed004(seed004_store: Path) -> None:
    with KuzuStore(seed004_store) as graph:
        scout = read_seed004(graph, "scout")
        assert [r.action for r in scout] == ["scaled out", "added volume", "rotated logs"]
        assert [r.action for r in read_seed004(graph, "scout", min_importance=5)] == [
            "added volume", "rotated logs"
        ]  # fmt: skip
        assert len(read_seed004(graph, "scout", limit=1)) == 1
        assert len(read_seed004(graph, "scout", keyword="DISK")) == 2
        assert len(read_seed004(graph, "scout", since=T0 + timedelta(minutes=1))) == 2
        assert [r.context for r in read_seed004(graph, "ranger")] == ["ranger's own"]
        nexts = followed_by(graph, scout[2].id)
        assert [(r.action, delta, same) for r, delta, same in nexts] == [
            ("added volume", 300, True)
        ]
        agent = seed004_agent(graph, "scout")
        assert agent is not None and agent["total_experiences"] == 3
        assert agent["first_seen"] == T0 and agent["last_active"] == T0 + timedelta(hours=1)
        assert seed004_agent(graph, "nobody") is None


def test_add_seed004_checks_before_writing(seed004_store: Path) -> None:
    with KuzuStore(seed004_store, read_only=False) as graph:
        bad = record()
        bad.importance = 42  # fields are mutable; add_seed004 checks again
        with pytest.raises(InvalidExperienceError, match="between 1 and 10"):
            add_seed004(graph, bad)
        with pytest.raises(InvalidExperienceError, match="follows"):
            add_seed004(graph, record(), follows=str(uuid.uuid4()))
        assert len(read_seed004(graph, "scout")) == 3


def test_rows_breaking_the_rules_are_skipped_or_raise(seed004_store: Path) -> None:
    with KuzuStore(seed004_store, read_only=False) as graph:
        graph.execute(
            "CREATE (:Experience {id: 'not-a-uuid', agent_id: 'scout', context: 'x', "
            "action: 'y', outcome: 'z', timestamp: $ts, importance: 42})",
            {"ts": T0},
        )
        assert len(read_seed004(graph, "scout")) == 3
        with pytest.raises(InvalidExperienceError, match="not-a-uuid"):
            read_seed004(graph, "scout", strict=True)


def test_connector_reads_a_seed004_store(seed004_store: Path) -> None:
    folder = seed004_store.parent
    before = checksums(folder)
    with MemoryConnector("scout", storage_path=folder, backend="kuzu") as connector:
        assert connector.read_only
        found = connector.retrieve_experiences()
        assert [e.outcome for e in found] == [
            "scaled out -> latency normal", "added volume -> fixed for good",
            "rotated logs -> usage back to 40%",
        ]  # fmt: skip
        assert all(uuid.UUID(e.experience_id) for e in found)
        assert found[0].experience_type is ExperienceType.SUCCESS
        assert [e.confidence for e in connector.retrieve_experiences(min_confidence=0.5)] == [
            0.9, 0.7
        ]  # fmt: skip
        assert len(connector.retrieve_experiences(experience_type=ExperienceType.SUCCESS)) == 1
        assert [e.confidence for e in connector.search("disk volumes")] == [0.9]
        stats = connector.get_statistics()
        assert stats["total_experiences"] == 3
        assert stats["by_type"] == {ExperienceType.SUCCESS: 1, ExperienceType.INSIGHT: 2}
        with pytest.raises(SchemaMismatchError, match="seed 004"):
            connector.store_experience(found[0])
        assert connector.read_only
    with MemoryConnector("ranger", storage_path=folder, backend="kuzu") as ranger:
        assert [e.context for e in ranger.retrieve_experiences()] == ["ranger's own"]
        assert ranger.search("disk") == []
    assert checksums(folder) == before


def test_stats_reports_the_layout(seed004_store: Path) -> None:
    summary = summarize_store(seed004_store)
    assert summary.kind == "experience"
    assert summary.layout == "seed-004"
    assert summary.agents["scout"]["Experience"] == 3
    assert summary.agents["scout"]["FOLLOWED_BY"] == 2
    assert summary.agents["ranger"]["Experience"] == 1


def test_stats_on_stores_this_engine_writes(tmp_path: Path) -> None:
    from memexplorer.memory.experience import Experience

    for backend in ("sqlite", "kuzu"):
        with MemoryConnector("writer", storage_path=tmp_path, backend=backend) as connector:
            connector.store_experience(Experience(ExperienceType.SUCCESS, "c", "o", 0.5))
    sqlite = summarize_store(tmp_path / "experiences.db")
    kuzu = summarize_store(tmp_path / "kuzu_db")
    for summary in (sqlite, kuzu):
        assert summary.kind == "experience" and summary.layout == "amplihack"
    assert sqlite.agents == {"writer": {"experiences": 1}}
    assert kuzu.agents["writer"]["Experience"] == 1


def test_reference_stores_summary_matches_manifest(reference_stores: Path, manifest: dict) -> None:
    folder = "home/.amplihack/memory/ops-agent"
    sqlite = summarize_store(reference_stores / folder / "experiences.db")
    kuzu = summarize_store(reference_stores / folder / "kuzu_db")
    inventory = manifest["databases"][f"{folder}/experiences.db"]["inventory"]
    per_type = inventory["per_agent_type"]["ops-agent"]
    assert sqlite.kind == kuzu.kind == "experience"
    assert sqlite.layout == kuzu.layout == "amplihack"
    assert sqlite.agents == {
        "ops-agent": {"experiences": sum(t["count"] for t in per_type.values())}
    }
    kuzu_inventory = manifest["databases"][f"{folder}/kuzu_db"]["inventory"]
    expected = {
        "Experience": kuzu_inventory["node_tables"]["Experience"]["per_agent"]["ops-agent"],
        **{name: rel["count"] for name, rel in kuzu_inventory["rel_tables"].items()},
    }
    assert kuzu.agents == {"ops-agent": expected}
