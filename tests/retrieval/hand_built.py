"""Rows written straight into a hand-built HierarchicalMemory store, for tests whose
expected answers are worked out by hand from the library's code: every test file
writes its facts and edges the same way, with only what it varies spelled out."""

from __future__ import annotations

from typing import Any

from memexplorer.storage.graph_store import identifier

AGENT = "agent"


def add_fact(
    graph: Any,
    fact_id: str,
    content: str,
    confidence: float,
    *,
    created: str,
    concept: str = "c",
    entity: str = "",
    source: str = "",
    tags: str = "[]",
    metadata: str = "{}",
) -> None:
    """One SemanticMemory row of agent ``AGENT``."""
    graph.execute(
        "CREATE (:SemanticMemory {memory_id: $id, concept: $concept, content: $content, "
        "confidence: $confidence, source_id: $source, agent_id: $agent, tags: $tags, "
        "metadata: $metadata, created_at: $created, entity_name: $entity})",
        {"id": fact_id, "concept": concept, "content": content, "confidence": confidence,
         "source": source, "agent": AGENT, "tags": tags, "metadata": metadata,
         "created": created, "entity": entity},
    )  # fmt: skip


def add_edge(graph: Any, rel: str, source: str, target: str, **props: Any) -> None:
    """One ``rel`` edge between two facts, with ``props`` as its properties."""
    assignments = ", ".join(f"{identifier(name)}: ${name}" for name in props)
    graph.execute(
        "MATCH (a:SemanticMemory {memory_id: $a}), (b:SemanticMemory {memory_id: $b}) "
        f"CREATE (a)-[:{identifier(rel)} {{{assignments}}}]->(b)",
        {"a": source, "b": target, **props},
    )
