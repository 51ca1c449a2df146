"""CognitiveMemory: the API's constants and types, and each memory type's behaviour."""

from __future__ import annotations

import dataclasses
from datetime import datetime

import pytest

from memexplorer.memory import cognitive_memory as cm
from memexplorer.memory.cognitive_memory import CognitiveMemory
from memexplorer.memory.memory_types import (
    ConsolidatedEpisode,
    EpisodicMemory,
    MemoryCategory,
    ProceduralMemory,
    ProspectiveMemory,
    SemanticFact,
    SensoryItem,
    WorkingMemorySlot,
)
from memexplorer.storage.exceptions import InvalidInputError


@pytest.fixture
def memory(tmp_path):
    with CognitiveMemory("tester", tmp_path / "cog" / "db") as mem:
        yield mem


class Clock:
    """A settable time source for TTL tests (no sleeping)."""

    def __init__(self, now: int = 1_800_000_000) -> None:
        self.now = now

    def __call__(self) -> int:
        return self.now


# -- constants and types ----------------------------------------------------------------
def test_constants():
    assert cm.WORKING_MEMORY_CAPACITY == CognitiveMemory.WORKING_MEMORY_CAPACITY == 20
    assert isinstance(cm.SIMILARITY_THRESHOLD, float) and 0 < cm.SIMILARITY_THRESHOLD < 1
    assert cm.SIMILARITY_THRESHOLD == 0.6
    assert (cm.SIMILARITY_CANDIDATE_LIMIT, cm.MAX_SEARCH_KEYWORDS) == (50, 6)
    assert (cm.GRAPH_FETCH_MULTIPLIER, cm.MIN_TOKEN_LENGTH) == (5, 3)
    statuses = (
        cm.PROSPECTIVE_STATUS_PENDING,
        cm.PROSPECTIVE_STATUS_TRIGGERED,
        cm.PROSPECTIVE_STATUS_RESOLVED,
    )
    assert statuses == ("pending", "triggered", "resolved")


def test_memory_types():
    assert [c.value for c in MemoryCategory] == [
        "sensory", "working", "episodic", "semantic", "procedural", "prospective",
    ]  # fmt: skip

    def fields(cls):
        return [f.name for f in dataclasses.fields(cls)]

    assert fields(SensoryItem) == ["node_id", "modality", "raw_data", "observation_order",
                                   "expires_at", "created_at"]  # fmt: skip
    assert fields(WorkingMemorySlot) == ["node_id", "slot_type", "content", "relevance",
                                         "task_id", "created_at"]  # fmt: skip
    assert fields(EpisodicMemory) == ["node_id", "content", "source_label", "temporal_index",
                                      "compressed", "created_at", "metadata"]  # fmt: skip
    assert fields(SemanticFact) == ["node_id", "concept", "content", "confidence", "source_id",
                                    "tags", "metadata", "created_at"]  # fmt: skip
    assert fields(ProceduralMemory) == ["node_id", "name", "steps", "prerequisites",
                                        "usage_count", "created_at"]  # fmt: skip
    assert fields(ProspectiveMemory) == ["node_id", "description", "trigger_condition",
                                         "action_on_trigger", "status", "priority",
                                         "created_at"]  # fmt: skip
    assert fields(ConsolidatedEpisode) == ["node_id", "summary", "original_count", "created_at"]
    fact = SemanticFact("sem_1", "c", "x", 0.5)
    assert fact.tags == [] and fact.metadata == {} and isinstance(fact.created_at, datetime)
    assert ProspectiveMemory("p", "d", "t", "a").status == "pending"
    assert EpisodicMemory("e", "c", "s", 1).compressed is False


# -- sensory ----------------------------------------------------------------------------
def test_sensory_newest_first_and_ttl(memory):
    clock = Clock()
    memory.clock = clock
    first = memory.record_sensory("text", "first observation")
    second = memory.record_sensory("log", "second observation", ttl_seconds=10)
    gone = memory.record_sensory("error", "expired at once", ttl_seconds=0)
    assert first.startswith("sen_") and second.startswith("sen_")
    recent = memory.get_recent_sensory()
    assert [s.node_id for s in recent] == [second, first]
    assert recent[0].observation_order == 2 and recent[1].observation_order == 1
    assert recent[0].expires_at == clock.now + 10 and recent[1].expires_at == clock.now + 300
    assert gone not in {s.node_id for s in recent}
    assert len(memory.get_recent_sensory(limit=1)) == 1
    clock.now += 11
    assert [s.node_id for s in memory.get_recent_sensory()] == [first]
    assert memory.get_statistics()["sensory"] == 3  # expired rows stay until pruned


def test_prune_expired_sensory(memory):
    clock = Clock()
    memory.clock = clock
    keep = memory.record_sensory("text", "long lived", ttl_seconds=1000)
    memory.record_sensory("text", "short", ttl_seconds=5)
    memory.record_sensory("text", "instant", ttl_seconds=0)
    assert memory.prune_expired_sensory() == 1
    clock.now += 6
    assert memory.prune_expired_sensory() == 1
    assert memory.prune_expired_sensory() == 0
    assert [s.node_id for s in memory.get_recent_sensory()] == [keep]
    assert memory.get_statistics()["sensory"] == 1


def test_attend_to_sensory(memory):
    clock = Clock()
    memory.clock = clock
    sid = memory.record_sensory("log", "WARN p99 latency 1800ms", ttl_seconds=60)
    episode_id = memory.attend_to_sensory(sid, "latency signal")
    assert episode_id.startswith("epi_")
    episode = memory.get_episodes()[0]
    assert episode.node_id == episode_id
    assert "WARN p99 latency 1800ms" in episode.content and "latency signal" in episode.content
    edges = memory.graph.rows("MATCH (s)-[r:ATTENDED_TO]->(e) RETURN s.node_id, e.node_id")
    assert edges == [[sid, episode_id]]
    assert memory.attend_to_sensory("sen_unknown", "why") is None
    clock.now += 61
    assert memory.attend_to_sensory(sid, "too late") is None
    assert memory.prune_expired_sensory() == 1  # the attended item's edge goes with it


# -- working ----------------------------------------------------------------------------
def test_working_ordered_by_relevance(memory):
    low = memory.push_working("context", "background", "task-1", relevance=0.2)
    high = memory.push_working("goal", "ship the fix", "task-1", relevance=0.9)
    default = memory.push_working("constraint", "no downtime", "task-1")
    assert low.startswith("wrk_")
    slots = memory.get_working("task-1")
    assert [s.node_id for s in slots] == [default, high, low]
    assert slots[0].relevance == 1.0 and slots[0].task_id == "task-1"
    assert slots[1].slot_type == "goal" and slots[1].content == "ship the fix"
    assert memory.get_working("other-task") == []


def test_working_capacity_evicts_lowest_relevance_per_task(memory):
    capacity = CognitiveMemory.WORKING_MEMORY_CAPACITY
    ids = [
        memory.push_working("ctx", f"slot {i}", "big", relevance=0.5 + i / 100)
        for i in range(capacity)
    ]
    memory.push_working("ctx", "other task", "small", relevance=0.01)
    newest = memory.push_working("ctx", "newest", "big", relevance=0.3)
    slots = memory.get_working("big")
    assert len(slots) == capacity
    kept = {s.node_id for s in slots}
    assert ids[0] not in kept  # the least relevant (0.50) went
    assert newest in kept and set(ids[1:]) <= kept
    assert slots[-1].node_id == newest
    memory.push_working("ctx", "another", "big", relevance=0.99)
    assert newest not in {s.node_id for s in memory.get_working("big")}
    assert len(memory.get_working("small")) == 1  # capacity is per task


def test_clear_working(memory):
    for i in range(3):
        memory.push_working("ctx", f"slot {i}", "task-a")
    memory.push_working("ctx", "keep", "task-b")
    assert memory.clear_working("task-a") == 3
    assert memory.clear_working("task-a") == 0
    assert memory.get_working("task-a") == []
    assert len(memory.get_working("task-b")) == 1


# -- episodic ---------------------------------------------------------------------------
def test_episode_index_metadata_and_order(memory):
    first = memory.store_episode("deployed v1", "ci-run")
    second = memory.store_episode("deployed v2", "ci-run", metadata={"build": 42, "ok": True})
    explicit = memory.store_episode("planned v9", "roadmap", temporal_index=50)
    after = memory.store_episode("deployed v3", "ci-run")
    assert first.startswith("epi_")
    episodes = memory.get_episodes()
    assert [e.node_id for e in episodes] == [after, explicit, second, first]
    assert [e.temporal_index for e in episodes] == [51, 50, 2, 1]
    assert episodes[2].metadata == {"build": 42, "ok": True}
    assert episodes[3].metadata == {} and episodes[3].source_label == "ci-run"
    assert episodes[0].compressed is False
    assert len(memory.get_episodes(limit=2)) == 2


def test_consolidation_with_default_summary(memory):
    ids = [memory.store_episode(f"step {i}", "log") for i in range(5)]
    assert memory.consolidate_episodes(batch_size=6) is None
    con = memory.consolidate_episodes(batch_size=3)
    assert con.startswith("con_")
    visible = memory.get_episodes()
    assert [e.node_id for e in visible] == [ids[4], ids[3]]
    everything = memory.get_episodes(include_compressed=True)
    assert len(everything) == 5
    assert {e.node_id for e in everything if e.compressed} == set(ids[:3])
    (summary,) = memory.get_consolidated()
    assert summary.summary == "step 0 | step 1 | step 2" and summary.original_count == 3
    edges = memory.graph.rows(
        "MATCH (c:ConsolidatedEpisode)-[r:CONSOLIDATES]->(e) RETURN c.node_id, e.node_id"
    )
    assert sorted(edges) == sorted([con, i] for i in ids[:3])
    assert memory.consolidate_episodes(batch_size=3) is None  # only 2 uncompressed left


def test_consolidation_with_custom_summarizer(memory):
    for i in range(4):
        memory.store_episode(f"event {i}", "log")
    seen: list[list[str]] = []

    def summarize(contents: list[str]) -> str:
        seen.append(contents)
        return f"{len(contents)} events"

    con = memory.consolidate_episodes(batch_size=4, summarizer=summarize)
    assert seen == [["event 0", "event 1", "event 2", "event 3"]]
    assert memory.get_consolidated()[0].summary == "4 events"
    assert memory.get_consolidated()[0].node_id == con
    assert memory.get_episodes() == []
    with pytest.raises(InvalidInputError):
        memory.consolidate_episodes(batch_size=0)


# -- procedural -------------------------------------------------------------------------
def test_procedures_recall_and_usage_count(memory):
    rollback = memory.store_procedure(
        "rollback-deploy", ["Find last good release", "Run helm rollback"], ["kubectl access"]
    )
    scale = memory.store_procedure("scale-service", ["Raise replicas", "Watch latency"])
    assert rollback.startswith("proc_")
    (found,) = memory.recall_procedure("rollback")
    assert found.node_id == rollback and found.usage_count == 0  # the count before this call
    assert found.steps == ["Find last good release", "Run helm rollback"]
    assert found.prerequisites == ["kubectl access"]
    assert memory.recall_procedure("helm")[0].usage_count == 1  # matches a step
    assert memory.recall_procedure("ROLLBACK")[0].usage_count == 2
    most_used = memory.recall_procedure("")
    assert [p.node_id for p in most_used] == [rollback, scale]
    assert most_used[0].usage_count == 3 and most_used[1].usage_count == 0
    assert memory.list_procedures()[0].usage_count == 4  # listing counts no use
    assert memory.list_procedures()[1].prerequisites == []
    assert memory.recall_procedure("nothing-like-this") == []
    assert len(memory.recall_procedure("", limit=1)) == 1


def test_procedures_of_equal_usage_come_back_in_insertion_order(memory):
    """As the library's (ORDER BY usage_count DESC alone: ties in table order), even
    when every one is written within the same second and the ids sort otherwise."""
    written = [memory.store_procedure(f"proc-{n}", [f"step {n}"]) for n in range(12)]
    assert sorted(written) != written  # the ids alone would sort them otherwise
    assert [p.node_id for p in memory.list_procedures()] == written
    assert [p.node_id for p in memory.recall_procedure("step")] == written[:5]


def test_intentions_of_equal_priority_come_back_in_insertion_order(memory):
    written = [memory.store_prospective(f"do {n}", "when", "act", priority=1) for n in range(8)]
    assert [p.node_id for p in memory.list_prospective()] == written


def test_facts_of_equal_confidence_come_back_in_insertion_order(memory):
    """amplihack-memory-lib 4ae0813 (run in its own venv) gives 12 facts of one
    confidence written in one second back as written: ORDER BY confidence alone."""
    written = [memory.store_fact(f"c{n}", f"content number {n} shared", 0.5) for n in range(12)]
    assert sorted(written) != written
    assert [f.node_id for f in memory.get_all_facts()] == written


def test_working_slots_of_equal_relevance_come_back_in_insertion_order(memory):
    written = [memory.push_working("goal", f"w{n}", "t1", relevance=0.5) for n in range(8)]
    assert sorted(written) != written
    assert [s.node_id for s in memory.get_working("t1")] == written


def test_a_full_task_evicts_the_first_written_of_the_least_relevant(memory):
    """The library evicts min(get_working(), key=relevance): the first of the ties."""
    capacity = memory.WORKING_MEMORY_CAPACITY
    written = [memory.push_working("goal", f"w{n}", "t1", relevance=0.5) for n in range(capacity)]
    newest = memory.push_working("goal", "one more", "t1", relevance=0.5)
    assert [s.node_id for s in memory.get_working("t1")] == [*written[1:], newest]


# -- prospective ------------------------------------------------------------------------
def test_prospective_lifecycle_and_priority(memory):
    low = memory.store_prospective("Cert expiry", "certificate expiring", "renew cert")
    high = memory.store_prospective("Disk pressure", "disk full", "clean logs", priority=5)
    never = memory.store_prospective("Friday", "freeze window", "hold deploys", priority=3)
    assert low.startswith("pro_")
    assert memory.check_triggers("all quiet") == []
    fired = memory.check_triggers("The disk is almost FULL and a certificate is expiring")
    assert [p.node_id for p in fired] == [high, low]
    assert all(p.status == "triggered" for p in fired)
    assert fired[0].description == "Disk pressure" and fired[0].action_on_trigger == "clean logs"
    assert memory.check_triggers("disk full again") == []  # only pending items fire
    memory.resolve_prospective(high)
    memory.resolve_prospective("pro_unknown")
    statuses = {p.node_id: p.status for p in memory.list_prospective()}
    assert statuses == {high: "resolved", low: "triggered", never: "pending"}
    assert memory.check_triggers("disk full, freeze") == [
        p for p in memory.list_prospective("triggered") if p.node_id == never
    ]


def test_resolved_item_never_fires(memory):
    item = memory.store_prospective("Watch", "latency", "page on-call")
    memory.resolve_prospective(item)
    assert memory.check_triggers("latency is high") == []
    assert memory.list_prospective()[0].status == "resolved"


# -- statistics -------------------------------------------------------------------------
def test_statistics_count_every_type(memory):
    assert memory.get_statistics() == {
        "sensory": 0, "working": 0, "episodic": 0, "semantic": 0, "procedural": 0,
        "prospective": 0, "total": 0,
    }  # fmt: skip
    memory.record_sensory("text", "x")
    memory.push_working("goal", "y", "t")
    memory.push_working("goal", "z", "t")
    memory.store_episode("e", "s")
    memory.store_fact("c", "fact")
    memory.store_procedure("p", ["s"])
    memory.store_prospective("d", "t", "a")
    assert memory.get_statistics() == {
        "sensory": 1, "working": 2, "episodic": 1, "semantic": 1, "procedural": 1,
        "prospective": 1, "total": 7,
    }  # fmt: skip
