"""Knowledge-graph value types, the category classifier, and LLM context formatting.

These are the reference library's public dataclasses; ``hierarchical_memory``
re-exports them under the names code written for that library imports.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

__all__ = [
    "KnowledgeEdge",
    "KnowledgeNode",
    "KnowledgeSubgraph",
    "MemoryCategory",
    "MemoryClassifier",
]


class MemoryCategory(str, Enum):  # noqa: UP042 - the reference's (str, Enum) type
    """The five categories a hierarchical fact can have."""

    EPISODIC = "episodic"
    SEMANTIC = "semantic"
    PROCEDURAL = "procedural"
    PROSPECTIVE = "prospective"
    WORKING = "working"


class MemoryClassifier:
    """Keyword rules: procedural, then prospective, then episodic, else semantic."""

    RULES: tuple[tuple[MemoryCategory, frozenset[str]], ...] = (
        (
            MemoryCategory.PROCEDURAL,
            frozenset(
                {"step", "steps", "how to", "procedure", "process", "method", "recipe",
                 "instructions"}
            ),
        ),
        (
            MemoryCategory.PROSPECTIVE,
            frozenset({"plan", "goal", "future", "will", "should", "todo", "intend", "schedule"}),
        ),
        (
            MemoryCategory.EPISODIC,
            frozenset(
                {"happened", "event", "occurred", "experience", "observed", "saw", "noticed"}
            ),
        ),
    )  # fmt: skip

    def classify(self, content: str, concept: str = "") -> MemoryCategory:
        """The first category whose keyword occurs (as a substring) in content and concept."""
        text = f"{content} {concept}".lower()
        for category, keywords in self.RULES:
            if any(keyword in text for keyword in keywords):
                return category
        return MemoryCategory.SEMANTIC


@dataclass
class KnowledgeNode:
    node_id: str
    category: MemoryCategory
    content: str
    concept: str
    confidence: float = 0.8
    source_id: str = ""
    created_at: str = ""
    tags: list[str] = field(default_factory=list)
    metadata: dict[str, Any] = field(default_factory=dict)
    #: The extracted entity (lowercase); an addition to the reference's fields.
    entity_name: str = ""


@dataclass
class KnowledgeEdge:
    source_id: str
    target_id: str
    relationship: str
    weight: float = 1.0
    metadata: dict[str, Any] = field(default_factory=dict)


def _short(node_id: str) -> str:
    return f"{node_id[:8]}.."


def _temporal_index(node: KnowledgeNode) -> float:
    value = (node.metadata or {}).get("temporal_index")
    return value if isinstance(value, int | float) and not isinstance(value, bool) else 999999


def _markers(node: KnowledgeNode, chronological: bool) -> str:
    meta = node.metadata or {}
    parts = []
    if chronological:
        if meta.get("source_date"):
            parts.append(f"[Date: {meta['source_date']}]")
        elif meta.get("temporal_order"):
            parts.append(f"[Time: {meta['temporal_order']}]")
    if meta.get("source_label"):
        parts.append(f"[Source: {meta['source_label']}]")
    if meta.get("chain_position"):
        parts.append(f"[{meta['chain_position']}]")
    return "".join(f" {part}" for part in parts)


@dataclass
class KnowledgeSubgraph:
    nodes: list[KnowledgeNode] = field(default_factory=list)
    edges: list[KnowledgeEdge] = field(default_factory=list)
    query: str = ""

    def to_llm_context(self, chronological: bool = False) -> str:
        """The subgraph as text for an LLM prompt.

        Numbered facts with concept and confidence (by confidence, or by
        temporal index when ``chronological``), provenance and chain-position
        markers, the value transitions, contradiction warnings and a summary of
        the relationships among the facts.
        """
        if not self.nodes:
            return "No relevant knowledge found."
        lines = [f"Knowledge graph context for: {self.query}\n"]
        if chronological:
            ordered = sorted(self.nodes, key=lambda n: (_temporal_index(n), n.created_at or ""))
            lines.append("Facts (in chronological order):")
        else:
            ordered = sorted(self.nodes, key=lambda n: n.confidence, reverse=True)
            lines.append("Facts:")
        for number, node in enumerate(ordered, 1):
            lines.append(
                f"  {number}. [{node.concept}]{_markers(node, chronological)} {node.content} "
                f"(confidence: {node.confidence:.1f})"
            )
        lines.extend(self._transition_lines())
        lines.extend(self._contradiction_lines())
        lines.extend(self._relationship_lines())
        return "\n".join(lines)

    def _transition_lines(self) -> list[str]:
        transitions = sorted(
            (e for e in self.edges if e.relationship == "TRANSITIONED_TO"),
            key=lambda e: (e.metadata or {}).get("turn") or 0,
        )
        if not transitions:
            return []
        concepts = {n.node_id: n.concept for n in self.nodes}
        lines = ["\nValue transitions (oldest first):"]
        for edge in transitions:
            meta = edge.metadata or {}
            label = concepts.get(edge.source_id, "")
            lines.append(
                f"  - [{label}] {meta.get('to_value', '?')} -> {meta.get('from_value', '?')} "
                f"(turn {meta.get('turn', '?')}, {meta.get('transition_type') or 'update'})"
            )
        return lines

    def _contradiction_lines(self) -> list[str]:
        flagged = [e for e in self.edges if e.metadata and e.metadata.get("contradiction")]
        if not flagged:
            return []
        lines = ["\nContradictions detected:"]
        for edge in flagged:
            conflict = edge.metadata.get("conflicting_values", "unknown")
            lines.append(f"  - WARNING: Conflicting information found: {conflict}")
        return lines

    def _relationship_lines(self) -> list[str]:
        if not self.edges:
            return []
        counts = Counter(e.relationship for e in self.edges)
        summary = ", ".join(f"{n} {rel}" for rel, n in sorted(counts.items()))
        lines = [f"\nRelationships ({summary}):"]
        for edge in self.edges:
            lines.append(
                f"  - {_short(edge.source_id)} {edge.relationship} {_short(edge.target_id)} "
                f"(weight: {edge.weight:.2f})"
            )
        return lines
