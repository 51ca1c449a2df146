"""A merge, planned from the data: every edge it adds and every value it changes.

The kept fact supersedes each other fact of the group as the store's writer
supersedes (docs/curation.md, "Merge duplicates"): SUPERSEDES ``keep -> other``
with its ``reason`` and ``temporal_delta``; with memexplorer's seed-003 writer also
TRANSITIONED_TO and the other fact's confidence halved (at least 0.1), its first
value kept in metadata as ``confidence_before_supersede``. The same plan is
computed again under the write lock; the write happens only if it is unchanged.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from memexplorer.memory.contradiction import detect_contradiction
from memexplorer.memory.hierarchical_schema import loads_json
from memexplorer.memory.hierarchical_writing import lowered_confidence
from memexplorer.memory.similarity import compute_similarity
from memexplorer.memory.temporal import Supersession, TemporalFact
from memexplorer.operator.duplicates_grouping import DuplicateFact, concept_key
from memexplorer.operator.merge_store import AgentInStore, StoreFacts, Writer
from memexplorer.operator.record_dicts import FieldsRecord, field_dict
from memexplorer.storage.exceptions import InvalidInputError

__all__ = ["MergePlan", "MergeSupersession", "PlannedChange", "PlannedEdge", "plan_merge"]


@dataclass(frozen=True)
class PlannedEdge:
    """One edge the merge creates, with its properties in the writer's order."""

    rel: str
    source: str
    target: str
    properties: tuple[tuple[str, Any], ...]

    def to_dict(self) -> dict[str, Any]:
        return field_dict(self, properties=dict(self.properties))

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> PlannedEdge:
        props = tuple((str(k), v) for k, v in dict(data["properties"]).items())
        return cls(str(data["rel"]), str(data["source"]), str(data["target"]), props)


@dataclass(frozen=True)
class PlannedChange(FieldsRecord):
    """One property of a fact the merge sets, with its value before and after."""

    memory_id: str
    column: str
    before: Any
    after: Any

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> PlannedChange:
        return cls(str(data["memory_id"]), str(data["column"]), data["before"], data["after"])


@dataclass(frozen=True)
class MergeSupersession(Supersession):
    """Seed 003's supersession step with a merge's reason and delta."""

    merge_reason: str = ""
    merge_delta: str = ""

    @property
    def reason(self) -> str:
        return self.merge_reason

    @property
    def delta(self) -> str:
        return self.merge_delta


@dataclass(frozen=True)
class MergePlan(AgentInStore):
    """What merging ``others`` into ``keep`` writes in one store."""

    keep: DuplicateFact
    others: tuple[DuplicateFact, ...]
    scores: tuple[float, ...]
    edges: tuple[PlannedEdge, ...]
    changes: tuple[PlannedChange, ...]
    steps: tuple[MergeSupersession, ...]

    @property
    def memory_ids(self) -> list[str]:
        return [self.keep.memory_id, *(fact.memory_id for fact in self.others)]

    def to_dict(self) -> dict[str, Any]:
        return {
            **self.header(),
            "keep": self.keep.to_dict(),
            "others": [
                {**fact.to_dict(), "similarity": score}
                for fact, score in zip(self.others, self.scores, strict=True)
            ],
            "edges": [edge.to_dict() for edge in self.edges],
            "changes": [change.to_dict() for change in self.changes],
        }


def _reason(score: float) -> str:
    return f"Merged duplicate (similarity {score:.2f})"


def _delta(keep: DuplicateFact, other: DuplicateFact) -> str:
    """The library's ``index OLD -> NEW`` when both facts carry a temporal index."""
    if keep.temporal_index > 0 and other.temporal_index > 0:
        return f"index {other.temporal_index} -> {keep.temporal_index}"
    return ""


def _temporal(fact: DuplicateFact) -> TemporalFact:
    return TemporalFact(fact.memory_id, fact.concept, fact.content, "", fact.temporal_index)


def _step(keep: DuplicateFact, other: DuplicateFact, score: float) -> MergeSupersession:
    """The values TRANSITIONED_TO records: the numbers that differ, as the temporal
    step finds them; facts with the same numbers record their whole contents."""
    found = detect_contradiction(keep.content, other.content, keep.concept, other.concept)
    if found:
        new_value, _, old_value = str(found["conflicting_values"]).partition(" vs ")
    else:
        new_value, old_value = keep.content, other.content
    return MergeSupersession(_temporal(keep), _temporal(other), new_value, old_value,
                             _reason(score), _delta(keep, other))  # fmt: skip


def _lowered(other: DuplicateFact) -> list[PlannedChange]:
    """What seed 003's step sets on the older fact (nothing if it was lowered before):
    :func:`.hierarchical_writing.lowered_confidence`, which the step itself calls."""
    lowered = lowered_confidence(other.confidence, loads_json(other.metadata, {}))
    if lowered is None:
        return []
    return [
        PlannedChange(other.memory_id, "confidence", other.confidence, lowered[0]),
        PlannedChange(other.memory_id, "metadata", other.metadata, json.dumps(lowered[1])),
    ]


def _edges(writer: Writer, step: MergeSupersession) -> list[PlannedEdge]:
    new, old = step.newer.memory_id, step.older.memory_id
    edges = [PlannedEdge("SUPERSEDES", new, old,
                         (("reason", step.reason), ("temporal_delta", step.delta)))]  # fmt: skip
    if writer == "memexplorer":
        edges.append(PlannedEdge("TRANSITIONED_TO", new, old, (
            ("from_value", step.new_value), ("to_value", step.old_value),
            ("turn", step.newer.temporal_index), ("transition_type", "update"),
        )))  # fmt: skip
    return edges


def _checked(read: StoreFacts, keep_id: str, other_ids: list[str]) -> list[DuplicateFact]:
    by_id = {fact.memory_id: fact for fact in read.facts}
    ids = [keep_id, *other_ids]
    if not other_ids:
        raise InvalidInputError("Name at least one fact to merge into the one kept")
    if len(set(ids)) != len(ids):
        raise InvalidInputError("A fact is named twice (the kept one is not merged into itself)")
    missing = [memory_id for memory_id in ids if memory_id not in by_id]
    if missing:
        raise InvalidInputError(
            f"No fact {', '.join(missing)} of agent {read.agent} in {read.store}",
            hint="`memexplorer duplicates AGENT` lists the groups and their ids.",
        )
    facts = [by_id[memory_id] for memory_id in ids]
    for fact in facts:
        if fact.memory_id in read.superseded:
            raise InvalidInputError(
                f"Fact {fact.memory_id} is superseded already (by "
                f"{read.superseded[fact.memory_id]}); only current facts are merged"
            )
    if len({concept_key(fact.concept) for fact in facts}) > 1:
        raise InvalidInputError(
            "These facts have different concepts; duplicates share one",
            hint="Merge facts of one concept (`memexplorer duplicates` groups them so).",
        )
    return facts


def plan_merge(read: StoreFacts, keep_id: str, other_ids: list[str]) -> MergePlan:
    """The merge of ``other_ids`` into ``keep_id`` for the agent and store ``read`` describes."""
    keep, *others = _checked(read, keep_id, list(other_ids))
    scores = [compute_similarity(keep.as_node(), other.as_node()) for other in others]
    steps = [_step(keep, other, score) for other, score in zip(others, scores, strict=True)]
    edges = [edge for step in steps for edge in _edges(read.writer, step)]
    linked = [e for e in edges if e.rel == "TRANSITIONED_TO" and (e.source, e.target)
              in read.transitions]  # fmt: skip
    if linked:
        raise InvalidInputError(
            f"Fact {linked[0].source} has a TRANSITIONED_TO edge to {linked[0].target} "
            "already; merging would store a second one"
        )
    changes = []
    if read.writer == "memexplorer":
        changes = [change for other in others for change in _lowered(other)]
    return MergePlan(read.store, read.agent, read.engine, read.writer, keep, tuple(others),
                     tuple(scores), tuple(edges), tuple(changes), tuple(steps))  # fmt: skip
