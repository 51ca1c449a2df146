"""The reference library's ``to_llm_context()`` text, byte for byte.

Why: an operator asking "why did my agent say that?" must see the prompt text
the agent's own library built, not memexplorer's richer rendering (chain
positions, value transitions, a relationship summary). The format below is
``KnowledgeSubgraph.to_llm_context`` of amplihack-memory-lib at 4ae0813 and
b3033f7 (identical in both).
"""

from __future__ import annotations

from dataclasses import dataclass

from memexplorer.memory.knowledge import KnowledgeNode, KnowledgeSubgraph

__all__ = ["LibrarySubgraph"]


def _temporal_key(node: KnowledgeNode) -> tuple:
    index = node.metadata.get("temporal_index", 999999) if node.metadata else 999999
    return (index, node.created_at or "")


def _fact_lines(nodes: list[KnowledgeNode], chronological: bool) -> list[str]:
    if chronological:
        ordered = sorted(nodes, key=_temporal_key)
        lines = ["Facts (in chronological order):"]
    else:
        ordered = sorted(nodes, key=lambda n: n.confidence, reverse=True)
        lines = ["Facts:"]
    for number, node in enumerate(ordered, 1):
        time_marker = source_marker = ""
        if node.metadata:
            if chronological:
                if node.metadata.get("source_date", ""):
                    time_marker = f" [Date: {node.metadata['source_date']}]"
                elif node.metadata.get("temporal_order", ""):
                    time_marker = f" [Time: {node.metadata['temporal_order']}]"
            if node.metadata.get("source_label", ""):
                source_marker = f" [Source: {node.metadata['source_label']}]"
        lines.append(
            f"  {number}. [{node.concept}]{time_marker}{source_marker} {node.content} "
            f"(confidence: {node.confidence:.1f})"
        )
    return lines


@dataclass
class LibrarySubgraph(KnowledgeSubgraph):
    """A subgraph whose LLM context is the reference library's text."""

    def to_llm_context(self, chronological: bool = False) -> str:
        if not self.nodes:
            return "No relevant knowledge found."
        lines = [f"Knowledge graph context for: {self.query}\n"]
        lines.extend(_fact_lines(self.nodes, chronological))
        flagged = [e for e in self.edges if e.metadata and e.metadata.get("contradiction")]
        if flagged:
            lines.append("\nContradictions detected:")
            for edge in flagged:
                conflict = edge.metadata.get("conflicting_values", "unknown")
                lines.append(f"  - WARNING: Conflicting information found: {conflict}")
        if self.edges:
            lines.append("\nRelationships:")
            for edge in self.edges:
                lines.append(
                    f"  - {edge.source_id[:8]}.. {edge.relationship} "
                    f"{edge.target_id[:8]}.. (weight: {edge.weight:.2f})"
                )
        return "\n".join(lines)
