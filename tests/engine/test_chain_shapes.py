"""Chain shapes written edge by edge: merges, forks with different values, turns,
cycles, entity look-ups. Each fact and edge is created with Cypher, so the test
knows the whole graph, and every expected timeline is worked out by hand.

These tests were written to kill the mutants tools/mutate found alive in
chains.py (see tests/README.md).
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

from memexplorer.memory.hierarchical_memory import HierarchicalMemory
from memexplorer.operator.chains import (
    MAX_CYCLES,
    ChainEdges,
    ChainStep,
    TemporalChain,
    agent_chains,
    entity_chains,
    fact_chain,
)
from memexplorer.storage.graphdb import open_kuzu

AGENT = "shaper"


def _fact(memory_id: str, turn: int | None, **fields: Any) -> dict[str, Any]:
    day = fields.pop("day", 1)
    return {
        "id": memory_id, "concept": "sla", "content": f"fact {memory_id}", "confidence": 0.9,
        "metadata": json.dumps({"temporal_index": turn} if turn is not None else {}),
        "created_at": f"2026-01-{day:02d}T00:00:00", "entity": "sla", **fields,
    }  # fmt: skip


def _store(
    path: Path,
    facts: list[dict[str, Any]],
    supersedes: list[tuple[str, str]] = (),
    transitions: list[tuple[str, str, str, str, int | None]] = (),
) -> Path:
    """A HierarchicalMemory store holding exactly these facts and edges."""
    with HierarchicalMemory(AGENT, path) as memory:  # the schema
        graph = memory.graph
        for fact in facts:
            graph.execute(
                "CREATE (:SemanticMemory {memory_id: $id, concept: $concept, content: $content, "
                "confidence: $confidence, agent_id: $agent, metadata: $metadata, "
                "created_at: $created_at, entity_name: $entity})",
                {**fact, "agent": AGENT},
            )
        for newer, older in supersedes:
            graph.execute(
                "MATCH (a:SemanticMemory {memory_id: $a}), (b:SemanticMemory {memory_id: $b}) "
                "CREATE (a)-[:SUPERSEDES {reason: $reason, temporal_delta: ''}]->(b)",
                {"a": newer, "b": older, "reason": f"{newer} over {older}"},
            )
        for newer, older, new_value, old_value, turn in transitions:
            graph.execute(
                "MATCH (a:SemanticMemory {memory_id: $a}), (b:SemanticMemory {memory_id: $b}) "
                "CREATE (a)-[:TRANSITIONED_TO {from_value: $new, to_value: $old, turn: $turn, "
                "transition_type: 'update'}]->(b)",
                {"a": newer, "b": older, "new": new_value, "old": old_value, "turn": turn},
            )
    return path


def _chains(path: Path) -> list[TemporalChain]:
    with open_kuzu(path) as graph:
        return agent_chains(graph, AGENT)


def _by_id(chain: TemporalChain) -> dict[str, ChainStep]:
    return {step.memory_id: step for step in chain.steps}


# -- the small types ------------------------------------------------------------------
def test_chain_edges_count_both_kinds():
    edges = ChainEdges(
        supersedes={("b", "a"): ("r", "d"), ("c", "b"): ("r", "d")},
        transitions={("c", "b"): ("2", "1", 3)},
    )
    assert edges.count() == 3  # two SUPERSEDES and one TRANSITIONED_TO rows
    assert edges.pairs() == {("b", "a"), ("c", "b")}


def _step(memory_id: str = "m", **fields: Any) -> ChainStep:
    base: dict[str, Any] = {
        "memory_id": memory_id, "concept": "c", "content": "x", "confidence": 0.5,
        "created_at": "", "temporal_index": 0, "position": 1, "value": "", "previous_value": "",
        "value_from": "", "current": True, "superseded_by": "",
    }  # fmt: skip
    return ChainStep(**{**base, **fields})


def test_a_step_without_turn_or_gap_says_zero():
    step = _step()
    assert (step.turn, step.gap_before, step.in_cycle) == (0, 0, False)
    assert step.confidence_before is None


@pytest.mark.parametrize(
    ("before", "now", "lowered"),
    [(0.8, 0.4, True), (0.4, 0.8, False), (0.5, 0.5, False), (None, 0.5, False)],
)
def test_confidence_counts_as_lowered_only_when_it_went_down(before, now, lowered):
    assert _step(confidence=now, confidence_before=before).confidence_lowered is lowered


def test_a_chain_is_named_after_its_newest_step():
    steps = [_step(f"s{i}", concept=f"concept {i}", entity=f"entity {i}") for i in range(4)]
    chain = TemporalChain(AGENT, steps)
    assert (chain.concept, chain.entity) == ("concept 3", "entity 3")
    assert (TemporalChain(AGENT).concept, TemporalChain(AGENT).entity) == ("", "")


# -- timelines --------------------------------------------------------------------------
def test_a_fact_replacing_two_lists_the_nearest_first(tmp_path):
    # m replaced both a (no turn) and b (turn 3), which never replaced each other.
    facts = [_fact("a", None, day=1, content="respond in 4 hours"),
             _fact("b", 3, day=2, content="respond in 2 hours"),
             _fact("m", 6, day=3, content="respond in 1 hours")]  # fmt: skip
    path = _store(tmp_path / "s", facts, supersedes=[("m", "a"), ("m", "b")])
    [chain] = _chains(path)
    steps = _by_id(chain)
    assert [s.memory_id for s in chain.steps] == ["a", "b", "m"]
    assert steps["m"].supersedes == ("b", "a")
    assert steps["m"].gap_before == 2  # turns 4 and 5 missing after b, the nearest
    assert steps["m"].reason == "m over b"
    assert (steps["m"].previous_value, steps["m"].value) == ("2", "1")  # against b, not a
    assert [s.created_at for s in chain.steps] == [
        "2026-01-01T00:00:00", "2026-01-02T00:00:00", "2026-01-03T00:00:00",
    ]  # fmt: skip
    assert [s.confidence for s in chain.steps] == [0.9, 0.9, 0.9]


def test_a_fork_takes_the_oldest_value_from_its_nearest_replacement(tmp_path):
    facts = [_fact("old", 1), _fact("near", 2), _fact("far", 4)]
    transitions = [("near", "old", "2h", "4h (said near)", 2),
                   ("far", "old", "1h", "4h (said far)", 4)]  # fmt: skip
    path = _store(tmp_path / "s", facts, transitions=transitions)
    [chain] = _chains(path)
    old = _by_id(chain)["old"]
    assert old.superseders == ("near", "far") and old.superseded_by == "near"
    assert (old.value, old.value_from) == ("4h (said near)", "transitioned_to")
    assert _by_id(chain)["far"].gap_before == 2  # turns 2 and 3 after the 1 it replaced


def test_a_gap_after_the_first_turn_counts(tmp_path):
    path = _store(tmp_path / "s", [_fact("one", 1), _fact("four", 4)], supersedes=[("four", "one")])
    [chain] = _chains(path)
    assert [s.gap_before for s in chain.steps] == [0, 2]


def test_turns_that_are_not_positive_make_no_gap(tmp_path):
    facts = [
        _fact("neg", -2), _fact("none", None, day=2), _fact("three", 3, day=3),
        _fact("low", -2, concept="other"), _fact("four", 4, concept="other", day=4),
    ]  # fmt: skip
    supersedes = [("none", "neg"), ("three", "none"), ("four", "low")]
    chains = {c.concept: c for c in _chains(_store(tmp_path / "s", facts, supersedes))}
    assert [s.memory_id for s in chains["sla"].steps] == ["neg", "none", "three"]
    assert [s.gap_before for s in chains["sla"].steps] == [0, 0, 0]
    assert [s.gap_before for s in chains["other"].steps] == [0, 0]  # not 4 - (-2) - 1


def test_a_transition_without_a_turn_counts_zero(tmp_path):
    facts = [_fact("a", None), _fact("b", None, day=2)]
    path = _store(tmp_path / "s", facts, transitions=[("b", "a", "2", "1", None)])
    [chain] = _chains(path)
    assert [s.turn for s in chain.steps] == [0, 0]


def test_a_temporal_index_wins_over_a_transition_turn(tmp_path):
    facts = [_fact("a", 1), _fact("b", 2, day=2), _fact("c", None, day=3)]
    transitions = [("b", "a", "2", "1", 9), ("c", "b", "3", "2", 7)]
    path = _store(tmp_path / "s", facts, transitions=transitions)
    [chain] = _chains(path)
    assert [s.turn for s in chain.steps] == [1, 2, 7]  # b keeps its index; c has none


def test_a_fact_without_confidence_counts_zero(tmp_path):
    facts = [_fact("a", 1, confidence=None), _fact("b", 2, day=2)]
    path = _store(tmp_path / "s", facts, supersedes=[("b", "a")])
    [chain] = _chains(path)
    assert [s.confidence for s in chain.steps] == [0.0, 0.9]


# -- cycles -----------------------------------------------------------------------------
def test_a_cycle_is_found_among_plain_chains_and_marks_only_its_facts(tmp_path):
    # Plain chains first in the store, so they are met first; then a two-fact cycle.
    facts = [_fact(f"p{i}", i, concept="plain", entity="plain") for i in range(1, 4)]
    facts += [_fact("q1", 1, concept="other", entity="other"), _fact("q2", 2, concept="other")]
    facts += [_fact("c1", 1, concept="loop", day=5), _fact("c2", 2, concept="loop", day=5)]
    supersedes = [("p2", "p1"), ("p3", "p2"), ("q2", "q1"), ("c2", "c1"), ("c1", "c2")]
    chains = {c.concept: c for c in _chains(_store(tmp_path / "s", facts, supersedes))}
    assert chains["loop"].cycles == [["c1", "c2"]]
    assert all(s.in_cycle for s in chains["loop"].steps)
    for name in ("plain", "other"):
        assert chains[name].cycles == [] and not any(s.in_cycle for s in chains[name].steps)
        assert chains[name].flags == []


def test_at_most_max_cycles_are_listed_and_late_claims_keep_their_order(tmp_path):
    # Every fact replaces every other: 20 simple cycles among four facts.
    ids = ["f1", "f2", "f3", "f4"]
    facts = [_fact(i, turn) for turn, i in enumerate(ids, 1)]
    pairs = [(a, b) for a in ids for b in ids if a != b]
    [chain] = _chains(_store(tmp_path / "s", facts, supersedes=pairs))
    assert MAX_CYCLES == 10 and len(chain.cycles) == 10
    assert chain.cycles == sorted(chain.cycles)
    # f4, the newest, is "replaced" by each older fact: edges against time, oldest first.
    assert _by_id(chain)["f4"].superseders == ("f1", "f2", "f3")


# -- entities ---------------------------------------------------------------------------
def _entity_store(path: Path) -> Path:
    facts = [
        _fact("solo", 1, entity="aws", day=1),  # a chain of one, the oldest fact
        _fact("a1", 1, entity="aws", day=2), _fact("a2", 2, entity="aws", day=3),
        _fact("a3", 3, entity="aws", day=4),
        _fact("l1", 1, entity="aws lambda", day=5), _fact("l2", 2, entity="aws lambda", day=6),
        _fact("late", 1, entity="aws", day=7),  # found after facts already in a chain
    ]  # fmt: skip
    return _store(path, facts, supersedes=[("a2", "a1"), ("a3", "a2"), ("l2", "l1")])


def test_entity_chains_prefer_exact_names_longest_first(tmp_path):
    with open_kuzu(_entity_store(tmp_path / "s")) as graph:
        chains = entity_chains(graph, AGENT, "AWS")
    assert [[s.memory_id for s in c.steps] for c in chains] == [
        ["a1", "a2", "a3"], ["solo"], ["late"],
    ]  # fmt: skip


def test_entity_chains_fall_back_to_names_containing_it(tmp_path):
    with open_kuzu(_entity_store(tmp_path / "s")) as graph:
        chains = entity_chains(graph, AGENT, "lambda")
        one = fact_chain(graph, AGENT, "l1")
    assert [[s.memory_id for s in c.steps] for c in chains] == [["l1", "l2"]]
    assert one.steps == chains[0].steps


def test_a_fact_replacing_itself_is_a_cycle_of_one(tmp_path):
    path = _store(tmp_path / "s", [_fact("self", 1)], supersedes=[("self", "self")])
    [chain] = _chains(path)
    assert chain.cycles == [["self"]]
    [step] = chain.steps
    assert step.in_cycle and step.superseders == ("self",) and not step.current
    assert chain.flags == ["cycle", "no current value"]


def test_steps_cannot_be_changed():
    with pytest.raises(dataclasses.FrozenInstanceError):
        _step().value = "other"  # type: ignore[misc]
