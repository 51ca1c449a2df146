"""Temporal chains: reference DAGs reduced to timelines, memexplorer's own chains with
TRANSITIONED_TO values, entity chains, and the agent store resolution they share."""

from __future__ import annotations

import pytest

from memexplorer.memory.hierarchical_memory import HierarchicalMemory
from memexplorer.operator.agent_memory import agent_store_path, open_agent_memory
from memexplorer.operator.chains import entity_chains, fact_chain
from memexplorer.storage.exceptions import (
    AgentNameError,
    InvalidInputError,
    NotAStoreError,
    StoreNotFoundError,
)

OPS = "home/.amplihack/hierarchical_memory/ops-agent"


def _members(manifest, store, agent, concept):
    components = manifest["databases"][store]["inventory"]["supersedes_components"][agent]
    [component] = [c for c in components if c["concept"] == concept]
    return component


def test_a_reference_dag_becomes_its_timeline(reference_stores, manifest):
    component = _members(manifest, f"{OPS}/kuzu_db", "ops-agent", "aws monthly-bill")
    members = [m["memory_id"] for m in component["members_by_temporal_index"]]
    with open_agent_memory("ops-agent", reference_stores / OPS) as memory:
        chain = fact_chain(memory.graph, "ops-agent", members[2])
    assert [s.memory_id for s in chain.steps] == members
    assert chain.stored_edges == component["edge_count"] == 10
    assert [s.value for s in chain.steps] == ["41200", "45500", "39800", "52000", "48700"]
    assert [s.previous_value for s in chain.steps] == ["", "41200", "45500", "39800", "52000"]
    assert {s.value_from for s in chain.steps} == {"numbers"}
    assert [s.current for s in chain.steps] == [False] * 4 + [True]
    assert [s.superseded_by for s in chain.steps] == [*members[1:], ""]
    assert [s.position for s in chain.steps] == [1, 2, 3, 4, 5]


def test_entity_chains_on_reference_stores(reference_stores, manifest):
    store = "home/.amplihack/hierarchical_memory/research-agent"
    component = _members(manifest, f"{store}/kuzu_db", "research-agent", "Sarah Chen job")
    with open_agent_memory("research-agent", reference_stores / store) as memory:
        [chain] = entity_chains(memory.graph, "research-agent", "Sarah Chen")
        webb = entity_chains(memory.graph, "research-agent", "marcus webb")
        with pytest.raises(InvalidInputError, match="no facts about"):
            entity_chains(memory.graph, "research-agent", "nobody at all")
        with pytest.raises(InvalidInputError, match="no fact with id"):
            fact_chain(memory.graph, "research-agent", "not-an-id")
    assert [s.memory_id for s in chain.steps] == [
        m["memory_id"] for m in component["members_by_temporal_index"]
    ]
    assert [(s.previous_value, s.value) for s in chain.steps][1:] == [
        ("63", "65"), ("65", "67"), ("67", "70"),
    ]  # fmt: skip
    # Two role facts without numbers: no SUPERSEDES joined them, so two chains of one.
    assert [len(c.steps) for c in webb] == [1, 1]
    assert all(c.steps[0].current and c.steps[0].value_from == "" for c in webb)


def test_own_chains_use_transitioned_to_values(tmp_path):
    with HierarchicalMemory("tester", tmp_path / "store") as memory:
        ids = {}
        for turn in (1, 3, 2, 4):  # out of order: the timeline still follows temporal_index
            value = {1: "3", 2: "4", 3: "6", 4: "8"}[turn]
            ids[turn] = memory.store_knowledge(
                f"checkout-api runs {value} replicas",
                "checkout-api replicas",
                temporal_metadata={"temporal_index": turn},
            )
        chain = fact_chain(memory.graph, "tester", ids[1])
    assert [s.memory_id for s in chain.steps] == [ids[t] for t in (1, 2, 3, 4)]
    assert [s.value for s in chain.steps] == ["3", "4", "6", "8"]
    assert [s.value_from for s in chain.steps] == ["transitioned_to"] * 4
    assert chain.current == [chain.steps[-1]]


def test_agent_store_path_forms(reference_stores):
    store = reference_stores / OPS / "kuzu_db"
    for given in (
        store,
        store.parent,
        reference_stores / "home",
        reference_stores / "home/.amplihack",
    ):
        assert agent_store_path("ops-agent", given) == store
    assert agent_store_path("ops-agent", home=reference_stores / "home/.amplihack") == store
    with pytest.raises(AgentNameError):
        agent_store_path("../etc", reference_stores)


def test_open_agent_memory_refuses_clearly(reference_stores):
    with pytest.raises(InvalidInputError, match="ops-agent has no memories") as caught:
        open_agent_memory("ops-agent", reference_stores / "shared_two_agents")
    assert caught.value.hint == "Agents in this store: escalation-bot, triage-bot."
    with pytest.raises(StoreNotFoundError, match="nobody"):
        open_agent_memory("nobody", home=reference_stores / "home/.amplihack")
    with pytest.raises(NotAStoreError, match="not a HierarchicalMemory store"):
        open_agent_memory("ops-agent", reference_stores / "cognitive_db")
