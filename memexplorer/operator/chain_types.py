"""What a temporal chain is made of: its steps, the chain, the edges and facts it is read from.

Plain data, shared by the graph stores' chains (:mod:`.chains`) and amplihack-rs's
SQLite ones (:mod:`.rs_sqlite_chains`), whose timelines :mod:`.chain_timeline` builds.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from memexplorer.memory.hierarchical_schema import loads_json

__all__ = ["FACT_COLUMNS", "ChainEdges", "ChainFact", "ChainStep", "TemporalChain", "chain_fact"]


@dataclass(frozen=True)
class ChainStep:
    """One fact in a chain. ``value`` is what this fact says that the fact it
    replaced did not; ``previous_value`` what that fact said instead."""

    memory_id: str
    concept: str
    content: str
    confidence: float
    created_at: str
    temporal_index: int
    position: int
    value: str
    previous_value: str
    value_from: str  # "transitioned_to", "numbers" or "" (a chain of one)
    current: bool
    superseded_by: str
    entity: str = ""
    #: temporal_index, else the TRANSITIONED_TO turn that introduced this fact, else 0.
    turn: int = 0
    #: The SUPERSEDES edge's properties towards the fact this one replaced.
    reason: str = ""
    temporal_delta: str = ""
    #: Facts this one directly replaced (nearest first) and that directly replaced it.
    supersedes: tuple[str, ...] = ()
    superseders: tuple[str, ...] = ()
    in_cycle: bool = False
    #: Turns missing between the fact this one replaced and this one.
    gap_before: int = 0
    #: metadata confidence_before_supersede: the confidence before a newer fact lowered it.
    confidence_before: float | None = None

    @property
    def forked(self) -> bool:
        return len(self.superseders) > 1

    @property
    def confidence_lowered(self) -> bool:
        return self.confidence_before is not None and self.confidence_before > self.confidence


@dataclass
class TemporalChain:
    """A chain of one agent's facts, oldest first; ``stored_edges`` counts the
    SUPERSEDES and TRANSITIONED_TO edges the store holds among them."""

    agent: str
    steps: list[ChainStep] = field(default_factory=list)
    stored_edges: int = 0
    #: Cycles among the edges, each as memory_ids (at most chain_timeline.MAX_CYCLES).
    cycles: list[list[str]] = field(default_factory=list)

    @property
    def current(self) -> list[ChainStep]:
        return [step for step in self.steps if step.current]

    @property
    def concept(self) -> str:
        return self.steps[-1].concept if self.steps else ""

    @property
    def entity(self) -> str:
        return self.steps[-1].entity if self.steps else ""

    @property
    def last_change(self) -> str:
        """When the chain's newest fact was written."""
        return max((step.created_at for step in self.steps), default="")

    @property
    def flags(self) -> list[str]:
        """What an operator should notice, in words."""
        found = [
            ("fork", any(s.forked for s in self.steps)),
            ("cycle", bool(self.cycles)),
            ("gap", any(s.gap_before for s in self.steps)),
            ("confidence lowered", any(s.confidence_lowered for s in self.steps)),
            ("no current value", bool(self.steps) and not self.current),
        ]
        return [name for name, present in found if present]

    def to_dict(self) -> dict[str, Any]:
        return {
            "agent": self.agent,
            "length": len(self.steps),
            "stored_edges": self.stored_edges,
            "flags": self.flags,
            "cycles": self.cycles,
            "steps": [asdict(step) for step in self.steps],
        }


@dataclass(frozen=True)
class ChainFact:
    """The columns of a fact a timeline shows (chains of thousands parse only these)."""

    node_id: str
    concept: str
    content: str
    confidence: float
    created_at: str
    entity_name: str
    metadata: dict[str, Any]


#: The SemanticMemory columns of a ChainFact, in its field order.
FACT_COLUMNS = (
    "m.memory_id, m.concept, m.content, m.confidence, m.created_at, m.entity_name, m.metadata"
)


def chain_fact(row: list[Any]) -> ChainFact:
    metadata = loads_json(row[6], {})
    confidence = row[3] if row[3] is not None else 0.0
    if not isinstance(metadata, dict):
        metadata = {}
    return ChainFact(
        row[0], row[1] or "", row[2] or "", confidence, row[4] or "", row[5] or "", metadata
    )


@dataclass
class ChainEdges:
    """Chain edges by (newer, older) pair: SUPERSEDES (reason, temporal_delta) and
    TRANSITIONED_TO (from_value = the newer value, to_value = the older, turn)."""

    supersedes: dict[tuple[str, str], tuple[str, str]] = field(default_factory=dict)
    transitions: dict[tuple[str, str], tuple[str, str, int]] = field(default_factory=dict)

    def pairs(self) -> set[tuple[str, str]]:
        return set(self.supersedes) | set(self.transitions)

    def count(self) -> int:
        return len(self.supersedes) + len(self.transitions)
