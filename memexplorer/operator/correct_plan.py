"""What correcting a fact writes, worked out before anything is written.

A correction is one ``store_knowledge`` call made the way the store's own
writer makes it (:mod:`.correct_rules`): the corrected content, the old fact's
concept (or a new one), its confidence (or a new one) and tags, and the next
``temporal_index`` of the concept, so the writer's own supersession rules decide
what the new fact supersedes. The plan holds every row and edge that call adds
and every property it changes on older facts; :mod:`.correct_write` writes
exactly the plan, after checking the store still gives the same one.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from memexplorer.operator.record_dicts import FieldsRecord

__all__ = [
    "WRITER_NAMES",
    "CorrectionPlan",
    "CorrectionRequest",
    "OldFact",
    "PlannedEdge",
    "PropertyChange",
    "Writer",
]

#: Whose store_knowledge a correction follows (:func:`.correct_rules.store_writer`).
Writer = Literal["library-kuzu", "library-ladybug", "memexplorer", "amplihack-rs"]
WRITER_NAMES: dict[str, str] = {
    "library-kuzu": "amplihack-memory-lib 4ae0813 (Kuzu era)",
    "library-ladybug": "amplihack-memory-lib b3033f7 (LadybugDB era)",
    "memexplorer": "memexplorer's HierarchicalMemory (TRANSITIONED_TO, lowered confidence)",
    "amplihack-rs": "amplihack-rs (HierarchicalMemoryLocal::store_knowledge)",
}


@dataclass(frozen=True)
class CorrectionRequest:
    """What the operator asked: the fact and its corrected values (None keeps the old)."""

    agent: str
    memory_id: str
    content: str
    concept: str | None = None
    confidence: float | None = None
    #: Fixed at preview time, so the write inside the gate plans the very same rows.
    node_id: str = field(default_factory=lambda: str(uuid.uuid4()))
    now_ns: int = 0


@dataclass(frozen=True)
class OldFact(FieldsRecord):
    memory_id: str
    concept: str
    content: str
    confidence: float
    tags: list[str]
    metadata: dict[str, Any]


@dataclass(frozen=True)
class PlannedEdge(FieldsRecord):
    """One edge the correction creates: ``(source)-[rel {properties}]->(target)``."""

    rel: str
    source: str
    target: str
    properties: dict[str, Any]


@dataclass(frozen=True)
class PropertyChange(FieldsRecord):
    """A property of an existing fact the writer changes (a lowered confidence)."""

    memory_id: str
    property: str
    before: Any
    after: Any


@dataclass(frozen=True)
class CorrectionPlan:
    """Every write of one correction, as the store's writer would make them."""

    store: Path
    engine: str
    writer: Writer
    agent: str
    old: OldFact
    #: The new SemanticMemory row, each column as it will be stored.
    node: dict[str, Any]
    #: The call made: store_knowledge's arguments.
    call: dict[str, Any]
    edges: list[PlannedEdge]
    changes: list[PropertyChange]

    @property
    def node_id(self) -> str:
        return str(self.node["memory_id"])

    @property
    def supersedes_old(self) -> bool:
        return any(e.rel == "SUPERSEDES" and e.target == self.old.memory_id for e in self.edges)

    @property
    def note(self) -> str:
        """Why the old fact stays current, when the writer's rules do not supersede it."""
        if self.supersedes_old:
            return ""
        if self.writer == "amplihack-rs":
            return ("amplihack-rs's store_knowledge never supersedes: the old fact stays "
                    "current beside the new one")  # fmt: skip
        over = [e.source for e in self.edges if e.rel == "SUPERSEDES" and e.target == self.node_id]
        if over:
            return (f"The writer makes {', '.join(o[:8] for o in over)} supersede the "
                    "correction (a higher temporal_index): the correction will not be the "
                    "current value")  # fmt: skip
        others = [e.target for e in self.edges
                  if e.rel == "SUPERSEDES" and e.target != self.node_id]  # fmt: skip
        if others:
            return (f"The writer supersedes {', '.join(o[:8] for o in others)} (the concept's "
                    "latest value) instead: the old fact is not superseded by the correction "
                    "itself")  # fmt: skip
        same = (str(self.node["content"]).strip(), str(self.node["concept"]).strip())
        if same == (self.old.content.strip(), self.old.concept.strip()):
            return ("The content and concept are the old fact's own: the correction would "
                    "only store a copy of it beside it")  # fmt: skip
        concept = str(self.call.get("concept", ""))
        if concept and not concept.split() and self.writer != "memexplorer":
            return ("The concept is only blanks: the library's supersession step fails on "
                    "it and supersedes nothing, so the old fact stays current beside the "
                    "new one")  # fmt: skip
        if not self._same_concept(concept):
            return (f"The concept changed ({self.old.concept!r} to {concept!r}): the writer "
                    "supersedes only facts of the same concept, so the old fact stays "
                    "current beside the new one")  # fmt: skip
        index = self.old.metadata.get("temporal_index")
        if not isinstance(index, int | float) or isinstance(index, bool) or index <= 0:
            return ("The old fact has no temporal_index: the writer supersedes only facts "
                    "with one, so the old fact stays current beside the new one")  # fmt: skip
        new_index = self.call.get("temporal_metadata", {}).get("temporal_index", 0)
        if index >= new_index:
            return (f"The correction's temporal_index ({new_index}, the next of its concept) "
                    f"is not above the old fact's ({index}): the writer supersedes only "
                    "older indexes, so the old fact stays current beside the new one")  # fmt: skip
        return ("The writer supersedes a fact only when both contents hold a number the "
                "other lacks: the old fact stays current beside the new one")  # fmt: skip

    def _same_concept(self, concept: str) -> bool:
        """The writer's test: the library's first-word CONTAINS (its candidate query),
        memexplorer's equal concepts (case and spacing aside)."""
        new, old = concept.lower(), self.old.concept.lower()
        if self.writer == "memexplorer":
            return " ".join(new.split()) == " ".join(old.split())
        key = new.split()[0] if new.split() else ""
        return key in old or old in key

    def same_writes(self, other: CorrectionPlan) -> bool:
        """The same rows, edges and changes, but for the new fact's created_at (the
        writer stamps the time it stores the fact, not the time of the preview)."""
        mine, theirs = dict(self.node), dict(other.node)
        mine.pop("created_at", None), theirs.pop("created_at", None)
        return (mine, self.edges, self.changes) == (theirs, other.edges, other.changes)

    def to_dict(self) -> dict[str, Any]:
        return {
            "store": str(self.store), "engine": self.engine, "writer": self.writer,
            "writer_name": WRITER_NAMES[self.writer], "agent": self.agent,
            "old": self.old.to_dict(), "call": self.call, "node": self.node,
            "edges": [e.to_dict() for e in self.edges],
            "changes": [c.to_dict() for c in self.changes],
            "supersedes_old": self.supersedes_old, "note": self.note,
        }  # fmt: skip
