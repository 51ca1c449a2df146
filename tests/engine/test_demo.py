"""The demo home: every store kind with its counts, the chains and contradictions, the
planted fake credentials found by the audit, private permissions, all-or-nothing builds."""

from __future__ import annotations

import os
import stat
import time
from pathlib import Path

import pytest

from memexplorer.memory.cognitive_memory import CognitiveMemory
from memexplorer.memory.connector import MemoryConnector
from memexplorer.memory.flat_memory import SqliteFlatStore
from memexplorer.memory.inspection import summarize_store
from memexplorer.operator import demo
from memexplorer.operator.agent_memory import open_agent_memory
from memexplorer.operator.audit import audit_paths
from memexplorer.operator.chains import fact_chain
from memexplorer.operator.demo import write_demo_home
from memexplorer.storage.sqlite_readonly import open_sqlite_readonly
from memexplorer.storage.stores import find_stores

COGNITIVE = "cognitive_memory/ops-agent/cognitive_db"

#: Store (relative to the home) -> (kind, engine, per-agent counts).
EXPECTED_STORES = {
    COGNITIVE: ("cognitive", "kuzu", {"ops-agent": {
        "SensoryMemory": 4, "WorkingMemory": 3, "EpisodicMemory": 7, "SemanticMemory": 4,
        "ProceduralMemory": 2, "ProspectiveMemory": 3, "ConsolidatedEpisode": 1,
        "ATTENDED_TO": 1, "CONSOLIDATES": 4, "DERIVES_FROM": 4, "PROCEDURE_DERIVES_FROM": 0,
        "SIMILAR_TO": 1}}),
    "hierarchical_memory/ops-agent/graph_db": ("hierarchical", "kuzu", {"ops-agent": {
        "EpisodicMemory": 9, "SemanticMemory": 13, "DERIVES_FROM": 13, "SIMILAR_TO": 11,
        "SUPERSEDES": 4, "TRANSITIONED_TO": 4}}),
    "hierarchical_memory/research-agent/graph_db": ("hierarchical", "kuzu", {"research-agent": {
        "EpisodicMemory": 8, "SemanticMemory": 10, "DERIVES_FROM": 10, "SIMILAR_TO": 10,
        "SUPERSEDES": 5, "TRANSITIONED_TO": 5}}),
    "hierarchical_memory/support-agent/kuzu_db": ("hierarchical", "kuzu", {"support-agent": {
        "EpisodicMemory": 6, "SemanticMemory": 7, "DERIVES_FROM": 6, "SIMILAR_TO": 4,
        "SUPERSEDES": 2, "TRANSITIONED_TO": 2}}),
    "memory.db": ("flat", "sqlite", {
        "ops-agent": {"memory_entries": 3}, "research-agent": {"memory_entries": 2},
        "reviewer-agent": {"memory_entries": 1}, "support-agent": {"memory_entries": 3}}),
    "memory_graph.db": ("flat", "kuzu", {
        "ops-agent": {"ProceduralMemory": 1, "SemanticMemory": 2},
        "research-agent": {"SemanticMemory": 2}, "reviewer-agent": {"SemanticMemory": 1},
        "support-agent": {"EpisodicMemory": 1, "SemanticMemory": 2}}),
    "memory/ops-agent/experiences.db": ("experience", "sqlite", {
        "ops-agent": {"experiences": 6}}),
    "memory/research-agent/kuzu_db": ("experience", "kuzu", {"research-agent": {
        "Experience": 4, "LEADS_TO": 0, "SIMILAR_TO": 0}}),
    "memory/support-agent/experiences.db": ("experience", "sqlite", {
        "support-agent": {"experiences": 4}}),
}  # fmt: skip

#: Every planted fake credential: (store, agent, table, column, kind).
PLANTED = {
    (COGNITIVE, "ops-agent", "SensoryMemory", "raw_data", "github_token"),
    ("hierarchical_memory/ops-agent/graph_db", "ops-agent", "EpisodicMemory", "content", "db_url"),
    ("hierarchical_memory/ops-agent/graph_db", "ops-agent", "SemanticMemory", "content", "aws_key"),
    ("hierarchical_memory/research-agent/graph_db", "research-agent", "EpisodicMemory", "content",
     "ssh_key"),
    ("hierarchical_memory/support-agent/kuzu_db", "support-agent", "EpisodicMemory", "content",
     "openai_key"),
    ("memory.db", "ops-agent", "memory_entries", "content", "db_url"),
    ("memory_graph.db", "ops-agent", "SemanticMemory", "content", "db_url"),
    ("memory/ops-agent/experiences.db", "ops-agent", "experiences", "outcome", "openai_key"),
    ("memory/research-agent/kuzu_db", "research-agent", "Experience", "outcome", "slack_token"),
}  # fmt: skip


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_demo_home(tmp_path_factory.mktemp("demo") / "cache" / ".amplihack")


def test_every_store_kind_with_its_counts(home):
    found = {str(fmt.path.relative_to(home)): summarize_store(fmt) for fmt in find_stores(home)}
    assert {path: (s.kind, s.engine, s.agents) for path, s in found.items()} == EXPECTED_STORES
    assert all(not s.absent_tables for s in found.values())


@pytest.mark.parametrize(
    ("agent", "concept", "values"),
    [
        ("ops-agent", "checkout-api replicas", ["3", "4", "6", "8", "12"]),
        ("research-agent", "Sarah Chen job", ["63", "65", "67"]),
        ("research-agent", "copper price", ["8450", "8720", "9100", "8890"]),
        ("support-agent", "Acme Corp seats", ["50", "75", "120"]),
    ],
)
def test_chains_read_back_in_order(home, agent, concept, values):
    with open_agent_memory(agent, home=home) as memory:
        [[start]] = memory.graph.rows(
            "MATCH (m:SemanticMemory) WHERE m.concept = $c RETURN m.memory_id LIMIT 1",
            {"c": concept},
        )
        chain = fact_chain(memory.graph, agent, start)
    assert [step.value for step in chain.steps] == values
    assert [step.temporal_index for step in chain.steps] == list(range(1, len(values) + 1))
    assert {step.value_from for step in chain.steps[1:]} == {"transitioned_to"}
    assert chain.stored_edges == 2 * (len(values) - 1)  # SUPERSEDES and TRANSITIONED_TO
    assert [step.current for step in chain.steps] == [False] * (len(values) - 1) + [True]


@pytest.mark.parametrize(
    ("agent", "newer", "conflict"),
    [
        ("ops-agent", "Page when checkout-api p99 latency exceeds 500 ms", "500 vs 800"),
        ("research-agent", "Contoso has 11500 employees", "11500 vs 12000"),
        ("support-agent", "Refunds are allowed within 14 days of purchase", "14 vs 30"),
    ],
)
def test_two_sources_contradict_each_other(home, agent, newer, conflict):
    """Facts from different sources, outside any chain: the SIMILAR_TO edge says they clash."""
    with open_agent_memory(agent, home=home) as memory:
        rows = memory.graph.rows(
            """MATCH (a:SemanticMemory)-[r:SIMILAR_TO]->(b:SemanticMemory)
               WHERE a.content = $newer RETURN r.metadata, a.source_id <> b.source_id""",
            {"newer": newer},
        )
        supersedes = memory.graph.rows(
            "MATCH (a:SemanticMemory)-[:SUPERSEDES]-() WHERE a.content = $newer RETURN count(*)",
            {"newer": newer},
        )
    assert rows == [[f'{{"contradiction": true, "conflicting_values": "{conflict}"}}', True]]
    assert supersedes == [[0]]


def test_cognitive_memory_holds_all_six_types(home):
    with CognitiveMemory("ops-agent", home / COGNITIVE, mode="read") as memory:
        stats = memory.get_statistics()
        sensory = memory.get_recent_sensory(limit=10)
        working = memory.get_working("INC-4471")
        prospective = {p.description.split()[0]: p.status for p in memory.list_prospective()}
        episodes = memory.get_episodes(limit=20, include_compressed=True)
        [consolidated] = memory.get_consolidated()
        procedures = memory.list_procedures()
    assert {k: v for k, v in stats.items() if k != "total"} == {
        "sensory": 4, "working": 3, "episodic": 7, "semantic": 4, "procedural": 2,
        "prospective": 3,
    }  # fmt: skip
    assert len(sensory) == 3  # the fourth observation has expired
    assert [slot.slot_type for slot in working] == ["goal", "constraint", "context"]
    assert prospective == {"Review": "pending", "Follow": "triggered", "Renew": "resolved"}
    assert sum(e.compressed for e in episodes) == consolidated.original_count == 4
    assert (procedures[0].name, procedures[0].usage_count) == ("Drain a Kubernetes node", 1)


@pytest.mark.parametrize(
    ("agent", "backend", "total", "compressed"),
    [("ops-agent", "sqlite", 6, 2), ("support-agent", "sqlite", 4, 1),
     ("research-agent", "kuzu", 4, 1)],
)  # fmt: skip
def test_experiences_of_every_type_some_compressed(home, agent, backend, total, compressed):
    with MemoryConnector(agent, home / "memory" / agent, backend=backend) as connector:
        stats = connector.get_statistics()
        assert connector.read_only
    assert stats["total_experiences"] == total
    assert stats["compressed_experiences"] == compressed
    assert len(stats["by_type"]) == 4


def test_flat_store_sessions_agents_and_an_expired_row(home):
    with SqliteFlatStore(home / "memory.db") as store:
        sessions = {s.session_id: s.agents for s in store.list_sessions()}
        assert store.count_memories() == 9
    assert sessions == {
        "2026-04-02-incident-4471": {"ops-agent": 3, "support-agent": 1},
        "2026-04-03-market-brief": {"research-agent": 2},
        "2026-04-05-billing-triage": {"support-agent": 2},
        "2026-04-06-code-review": {"reviewer-agent": 1},
    }
    connection = open_sqlite_readonly(home / "memory.db")
    try:
        [(rows,)] = connection.execute("SELECT count(*) FROM memory_entries").fetchall()
    finally:
        connection.close()
    assert rows == 10


def test_the_audit_finds_every_planted_credential_and_nothing_else(home):
    report = audit_paths([home])
    assert not report.errors
    assert len(report.stores) == len(EXPECTED_STORES)
    found = {
        (str(Path(f.store).relative_to(home)), f.agent, f.table, f.column, f.kind)
        for f in report.findings
    }
    assert found == PLANTED
    assert len(report.findings) == len(PLANTED)


def test_files_and_folders_are_private(home):
    for folder, _dirs, files in os.walk(home.parent):
        assert stat.S_IMODE(os.stat(folder).st_mode) == 0o700, folder
        for name in files:
            assert stat.S_IMODE(os.stat(Path(folder) / name).st_mode) == 0o600, name


def test_the_same_texts_every_run(home, tmp_path):
    def texts(root: Path) -> list[str]:
        out = [str(fmt.path.relative_to(root)) for fmt in find_stores(root)]
        for agent in ("ops-agent", "research-agent", "support-agent"):
            with open_agent_memory(agent, home=root) as memory:
                out += sorted(f["content"] for f in memory.get_all_facts(limit=100))
        with SqliteFlatStore(root / "memory.db") as store:
            out += sorted(m.content for m in store.list_memories())
        return out

    again = write_demo_home(tmp_path / ".amplihack")
    assert texts(again) == texts(home)


def test_an_existing_home_is_refused(home):
    with pytest.raises(FileExistsError):
        write_demo_home(home)


def test_a_failed_build_leaves_nothing(tmp_path, monkeypatch):
    def broken(_home: Path) -> None:
        raise RuntimeError("disk full")

    # The hierarchical and cognitive stores are written, then the build fails.
    monkeypatch.setattr(demo, "write_experience_stores", broken)
    parent = tmp_path / "cache"
    stale = parent / ".amplihack.dead1.partial"
    fresh = parent / ".amplihack.busy1.partial"
    for folder in (stale, fresh):
        folder.mkdir(parents=True)
    old = time.time() - 3600
    os.utime(stale, (old, old))
    with pytest.raises(RuntimeError, match="disk full"):
        write_demo_home(parent / ".amplihack")
    # A killed build's leftovers go; a build that may still be running keeps its folder.
    assert sorted(p.name for p in parent.iterdir()) == [fresh.name]


def test_a_build_that_loses_the_race_keeps_the_winners_home(tmp_path, monkeypatch):
    home = tmp_path / ".amplihack"

    def other_build_finishes_first(staging: Path) -> None:
        (staging / "memory.db").write_bytes(b"ours")
        home.mkdir()
        (home / "memory.db").write_bytes(b"theirs")

    monkeypatch.setattr(demo, "_write_stores", other_build_finishes_first)
    assert write_demo_home(home) == home
    assert (home / "memory.db").read_bytes() == b"theirs"
    assert sorted(p.name for p in tmp_path.iterdir()) == [".amplihack"]
