"""Temporal updates on store: SUPERSEDES and TRANSITIONED_TO (seed 003, step 5).

When a fact with ``temporal_index`` > 0 contradicts an older fact about the
same concept or entity, the new fact supersedes it. memexplorer links each fact
to its neighbours in time only (the fact just before it and, when facts arrive
out of order, the one just after), so its chains are the timeline itself; the
reference library instead linked every newer fact to every older one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from memexplorer.memory.contradiction import detect_contradiction
from memexplorer.memory.hierarchical_schema import loads_json
from memexplorer.storage.graphdb import GraphStore

__all__ = ["TemporalFact", "TemporalIndex", "temporal_index_of"]


def temporal_index_of(metadata: dict[str, Any] | None) -> int:
    value = (metadata or {}).get("temporal_index", 0)
    if isinstance(value, bool) or not isinstance(value, int | float):
        return 0
    return int(value)


def _concept_key(concept: str) -> str:
    return " ".join(concept.lower().split())


@dataclass
class TemporalFact:
    memory_id: str
    concept: str
    content: str
    entity_name: str
    temporal_index: int


@dataclass(frozen=True)
class Supersession:
    """One planned ``newer -[SUPERSEDES, TRANSITIONED_TO]-> older`` pair."""

    newer: TemporalFact
    older: TemporalFact
    new_value: str
    old_value: str

    @property
    def reason(self) -> str:
        return f"Updated values: {self.new_value} vs {self.old_value}"

    @property
    def delta(self) -> str:
        return f"index {self.older.temporal_index} -> {self.newer.temporal_index}"


class TemporalIndex:
    """The agent's facts that carry a temporal index, kept in memory while writing.

    Loaded with one scan the first time a temporal fact is stored; valid because
    a writer holds the store's lock, so nobody else can add facts meanwhile.
    """

    def __init__(self, graph: GraphStore, agent_id: str) -> None:
        self._graph = graph
        self._agent_id = agent_id
        self._facts: list[TemporalFact] | None = None

    def _load(self) -> list[TemporalFact]:
        if self._facts is None:
            rows = self._graph.rows(
                """MATCH (m:SemanticMemory)
                   WHERE m.agent_id = $agent AND m.metadata CONTAINS 'temporal_index'
                   RETURN m.memory_id, m.concept, m.content, m.entity_name, m.metadata""",
                {"agent": self._agent_id},
            )
            self._facts = [
                TemporalFact(r[0], r[1] or "", r[2] or "", r[3] or "", index)
                for r in rows
                if (index := temporal_index_of(loads_json(r[4], {}))) > 0
            ]
        return self._facts

    def _related(self, fact: TemporalFact) -> list[TemporalFact]:
        key = _concept_key(fact.concept)
        return [
            other
            for other in self._load()
            if other.memory_id != fact.memory_id
            and (
                (key and _concept_key(other.concept) == key)
                or (fact.entity_name and other.entity_name == fact.entity_name)
            )
        ]

    def plan(self, fact: TemporalFact) -> list[Supersession]:
        """The supersessions a new fact creates: with its predecessor and successor."""
        before: tuple[int, Supersession] | None = None
        after: tuple[int, Supersession] | None = None
        for other in self._related(fact):
            if other.temporal_index == fact.temporal_index:
                continue
            earlier = other.temporal_index < fact.temporal_index
            newer, older = (fact, other) if earlier else (other, fact)
            found = detect_contradiction(newer.content, older.content, newer.concept, older.concept)
            if not found:
                continue
            new_value, _, old_value = str(found["conflicting_values"]).partition(" vs ")
            step = Supersession(newer, older, new_value, old_value)
            if earlier:
                if before is None or other.temporal_index > before[0]:
                    before = (other.temporal_index, step)
            elif after is None or other.temporal_index < after[0]:
                after = (other.temporal_index, step)
        return [pair[1] for pair in (before, after) if pair is not None]

    def add(self, fact: TemporalFact) -> None:
        self._load().append(fact)

    def forget(self, memory_ids: set[str]) -> None:
        if self._facts is not None:
            self._facts = [f for f in self._facts if f.memory_id not in memory_ids]
