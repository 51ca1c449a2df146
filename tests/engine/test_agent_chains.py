"""Every chain of an agent: the list's order and query count, the reduction of the
reference stores' complete SUPERSEDES DAGs, and forks, cycles, gaps and lowered
confidence in stores written here."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from memexplorer.memory.hierarchical_memory import HierarchicalMemory
from memexplorer.operator.chains import agent_chains, fact_chain
from memexplorer.storage.exceptions import InvalidInputError
from memexplorer.storage.graphdb import open_kuzu

HIERARCHICAL = "home/.amplihack/hierarchical_memory"
REFERENCE_AGENTS = [
    (f"{HIERARCHICAL}/ops-agent/kuzu_db", "ops-agent"),
    (f"{HIERARCHICAL}/research-agent/kuzu_db", "research-agent"),
    (f"{HIERARCHICAL}/support-bot/kuzu_db", "support-bot"),
    ("shared_two_agents/kuzu_db", "triage-bot"),
    ("shared_two_agents/kuzu_db", "escalation-bot"),
]


class CountingGraph:
    """A graph that counts the queries run through it."""

    def __init__(self, graph: Any) -> None:
        self.graph = graph
        self.queries = 0

    def rows(self, *args: Any, **kwargs: Any) -> Any:
        self.queries += 1
        return self.graph.rows(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.graph, name)


@pytest.mark.parametrize(("store", "agent"), REFERENCE_AGENTS)
def test_reference_dags_reduce_to_their_timelines(reference_stores, manifest, store, agent):
    components = manifest["databases"][store]["inventory"]["supersedes_components"][agent]
    with open_kuzu(reference_stores / store) as graph:
        counting = CountingGraph(graph)
        chains = agent_chains(counting, agent)
    assert counting.queries <= 3  # edges, transitions if present, facts: never one per fact
    expected = {c["concept"]: c for c in components}
    assert sorted(c.concept for c in chains) == sorted(expected)
    for chain in chains:
        component = expected[chain.concept]
        members = [m["memory_id"] for m in component["members_by_temporal_index"]]
        assert [s.memory_id for s in chain.steps] == members
        assert (
            chain.stored_edges == component["edge_count"] == len(members) * (len(members) - 1) / 2
        )
        # The reduction is a path: each fact replaced exactly the one before it.
        assert [s.supersedes for s in chain.steps] == [(), *((m,) for m in members[:-1])]
        assert [s.superseders for s in chain.steps] == [*((m,) for m in members[1:]), ()]
        assert [s.current for s in chain.steps] == [False] * (len(members) - 1) + [True]
        assert chain.flags == [] and chain.cycles == []
        assert [s.turn for s in chain.steps] == list(range(1, len(members) + 1))
        for older, newer in zip(chain.steps, chain.steps[1:], strict=False):
            assert newer.reason.startswith("Updated values: ")
            assert all(value in newer.reason for value in newer.value.split(", "))
            assert newer.temporal_delta == f"index {older.turn} -> {newer.turn}"


def test_the_list_is_longest_then_most_recently_changed(reference_stores):
    with open_kuzu(reference_stores / f"{HIERARCHICAL}/ops-agent/kuzu_db") as graph:
        chains = agent_chains(graph, "ops-agent")
    keys = [(len(c.steps), c.last_change) for c in chains]
    assert keys == sorted(keys, reverse=True)
    assert [c.concept for c in chains] == [
        "aws monthly-bill", "checkout-api replicas", "payments-db storage",
        "oncall rotation size", "grafana version",
    ]  # fmt: skip
    aws = chains[0]
    assert [s.value for s in aws.steps] == ["41200", "45500", "39800", "52000", "48700"]
    assert [s.previous_value for s in aws.steps] == ["", "41200", "45500", "39800", "52000"]
    assert aws.steps[1].reason == "Updated values: 45500 vs 41200"
    assert aws.steps[1].temporal_delta == "index 1 -> 2"
    assert aws.steps[0].reason == "" and aws.entity == "aws"
    assert aws.last_change == aws.steps[-1].created_at


def test_an_agent_without_chains_and_a_store_without_facts(tmp_path, reference_stores):
    with HierarchicalMemory("quiet", tmp_path / "store") as memory:
        memory.store_knowledge("The wiki lives on Confluence", "wiki location")
        assert agent_chains(memory.graph, "quiet") == []
        assert agent_chains(memory.graph, "nobody") == []
    experience = reference_stores / "home/.amplihack/memory/ops-agent/kuzu_db"
    with (
        open_kuzu(experience) as graph,
        pytest.raises(InvalidInputError, match="no SemanticMemory"),
    ):
        agent_chains(graph, "ops-agent")


def _replicas(memory: HierarchicalMemory, value: int, turn: int) -> str:
    return memory.store_knowledge(
        f"checkout-api runs {value} replicas", "checkout-api replicas",
        temporal_metadata={"temporal_index": turn},
    )  # fmt: skip


def test_forks_gaps_and_lowered_confidence(tmp_path):
    with HierarchicalMemory("tester", tmp_path / "store") as memory:
        first = _replicas(memory, 3, 1)
        left, right = _replicas(memory, 4, 2), _replicas(memory, 5, 2)  # both replace the 3
        storage = [
            memory.store_knowledge(f"payments-db uses {gb} GB of storage", "payments-db storage",
                                   temporal_metadata={"temporal_index": turn})
            for gb, turn in ((200, 1), (350, 2), (500, 5))
        ]  # fmt: skip
        chains = agent_chains(memory.graph, "tester")
        alone = fact_chain(memory.graph, "tester", left)
    gapped, fork = chains  # same length: the most recently changed first
    assert [s.memory_id for s in fork.steps] == [first, left, right]
    assert fork.steps[0].superseders == (left, right) and fork.steps[0].forked
    assert [s.current for s in fork.steps] == [False, True, True]
    assert [s.supersedes for s in fork.steps] == [(), (first,), (first,)]
    assert [(s.previous_value, s.value) for s in fork.steps] == [("", "3"), ("3", "4"), ("3", "5")]
    assert fork.flags == ["fork", "confidence lowered"]
    assert alone.steps == fork.steps
    # The replaced fact's confidence was halved once, and the old value kept in metadata.
    assert fork.steps[0].confidence_before == 0.8 and fork.steps[0].confidence == 0.4
    assert not fork.steps[1].confidence_lowered

    assert [s.memory_id for s in gapped.steps] == storage
    assert [s.gap_before for s in gapped.steps] == [0, 0, 2]  # turns 3 and 4 are missing
    assert [s.turn for s in gapped.steps] == [1, 2, 5]
    assert gapped.steps[2].temporal_delta == "index 2 -> 5"
    assert gapped.flags == ["gap", "confidence lowered"]


def _export(facts: list[tuple[str, str, int]], **edges: list[dict[str, Any]]) -> dict[str, Any]:
    """A format 1.1 export of facts (id, content, temporal_index) with the given edges."""
    nodes = [
        {"memory_id": memory_id, "concept": "sla response-time", "content": content,
         "confidence": 0.9, "metadata": {"temporal_index": turn} if turn else {},
         "created_at": f"2026-01-0{i + 1}T00:00:00", "entity_name": "sla"}
        for i, (memory_id, content, turn) in enumerate(facts)
    ]  # fmt: skip
    return {"format_version": "1.1", "semantic_nodes": nodes, **edges}


def _import(path: Path, data: dict[str, Any]) -> None:
    with HierarchicalMemory("importer", path) as memory:
        memory.import_from_json(data)


def test_cycles_are_flagged_and_nothing_is_current(tmp_path):
    facts = [("f-a", "respond in 4 hours", 1), ("f-b", "respond in 2 hours", 2),
             ("f-c", "respond in 1 hours", 3)]  # fmt: skip
    edges = [("f-b", "f-a"), ("f-c", "f-b"), ("f-a", "f-c")]  # the last one closes a cycle
    supersedes = [{"source_id": s, "target_id": t, "reason": "r", "temporal_delta": "d"}
                  for s, t in edges]  # fmt: skip
    _import(tmp_path / "store", _export(facts, supersedes_edges=supersedes))
    with open_kuzu(tmp_path / "store") as graph:
        [chain] = agent_chains(graph, "importer")
    assert chain.cycles == [["f-a", "f-c", "f-b"]]
    assert [s.memory_id for s in chain.steps] == ["f-a", "f-b", "f-c"]
    assert all(s.in_cycle for s in chain.steps)
    assert chain.current == []
    assert chain.flags == ["cycle", "no current value"]
    # The edge against time stays visible: f-c is superseded by f-a.
    assert chain.steps[2].superseders == ("f-a",)
    assert [(s.previous_value, s.value) for s in chain.steps] == [("", "4"), ("4", "2"), ("2", "1")]


def test_a_store_with_transitioned_to_only(tmp_path):
    facts = [("t-1", "respond in 4 hours", 0), ("t-2", "respond in 2 hours", 0),
             ("t-3", "respond in 1 hours", 0)]  # fmt: skip
    transitions = [
        {"source_id": "t-2", "target_id": "t-1", "from_value": "2h", "to_value": "4h", "turn": 7},
        {"source_id": "t-3", "target_id": "t-2", "from_value": "1h", "to_value": "2h", "turn": 9},
    ]
    _import(tmp_path / "store", _export(facts, transitioned_to_edges=transitions))
    with open_kuzu(tmp_path / "store") as graph:
        [chain] = agent_chains(graph, "importer")
    assert [s.memory_id for s in chain.steps] == ["t-1", "t-2", "t-3"]
    assert [(s.previous_value, s.value) for s in chain.steps] == [
        ("", "4h"), ("4h", "2h"), ("2h", "1h"),
    ]  # fmt: skip
    assert [s.value_from for s in chain.steps] == ["transitioned_to"] * 3
    # No temporal_index: the turns come from TRANSITIONED_TO, and 8 is missing.
    assert [s.turn for s in chain.steps] == [0, 7, 9]
    assert [s.gap_before for s in chain.steps] == [0, 0, 1]
    assert chain.stored_edges == 2 and [s.reason for s in chain.steps] == ["", "", ""]


def test_memexplorer_chain_with_transitioned_to(tmp_path):
    with HierarchicalMemory("tester", tmp_path / "store") as memory:
        ids = {
            turn: _replicas(memory, value, turn) for turn, value in ((1, 3), (3, 6), (2, 4), (4, 8))
        }
        [chain] = agent_chains(memory.graph, "tester")
    # 3 -> 1 was written before 2 arrived: the reduction drops it.
    assert [s.memory_id for s in chain.steps] == [ids[t] for t in (1, 2, 3, 4)]
    assert [s.supersedes for s in chain.steps] == [(), (ids[1],), (ids[2],), (ids[3],)]
    assert chain.stored_edges == 8  # four SUPERSEDES and four TRANSITIONED_TO
    assert [s.value for s in chain.steps] == ["3", "4", "6", "8"]
    assert [s.value_from for s in chain.steps] == ["transitioned_to"] * 4
    assert [s.reason for s in chain.steps][1:] == [
        "Updated values: 4 vs 3", "Updated values: 6 vs 4", "Updated values: 8 vs 6",
    ]  # fmt: skip
    assert [s.temporal_delta for s in chain.steps][1:] == [
        "index 1 -> 2", "index 2 -> 3", "index 3 -> 4",
    ]  # fmt: skip
    assert [s.confidence_lowered for s in chain.steps] == [True, True, True, False]
    assert chain.flags == ["confidence lowered"]


def test_edges_win_over_turns(tmp_path):
    # f-new has the earlier turn but replaces f-old: the timeline follows the edge.
    facts = [("f-old", "respond in 4 hours", 2), ("f-new", "respond in 2 hours", 1)]
    supersedes = [
        {"source_id": "f-new", "target_id": "f-old", "reason": "r", "temporal_delta": "d"}
    ]
    _import(tmp_path / "store", _export(facts, supersedes_edges=supersedes))
    with open_kuzu(tmp_path / "store") as graph:
        [chain] = agent_chains(graph, "importer")
    assert [s.memory_id for s in chain.steps] == ["f-old", "f-new"]
    assert [s.current for s in chain.steps] == [False, True]
    assert chain.cycles == [] and chain.steps[1].gap_before == 0
