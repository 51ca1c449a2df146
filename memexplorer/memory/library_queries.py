"""The Cypher amplihack-memory-lib's retrieve_subgraph runs, as its code spells it.

Why a module of its own: the ``library`` profile must ask the database exactly
what the library asks, so that a ``LIMIT`` window without ``ORDER BY`` returns
the same rows in the same order. The texts are copied from
``hierarchical_memory.py`` at 4ae0813 / b3033f7 (identical in both); the two
batched queries at the end are memexplorer's, used only where the answer
provably cannot differ (see :mod:`.retrieval_library`).
"""

from __future__ import annotations

__all__ = [
    "ENTITY_QUERY",
    "HOP_QUERY",
    "KEYWORD_QUERY",
    "PROVENANCE_QUERY",
    "SUPERSEDED_BATCH_QUERY",
    "SUPERSEDED_QUERY",
    "TWO_HOP_QUERY",
]

ENTITY_QUERY = """
                    MATCH (m:SemanticMemory)
                    WHERE m.agent_id = $agent_id
                      AND LOWER(m.entity_name) CONTAINS $entity
                    RETURN m.memory_id, m.concept, m.content, m.confidence,
                           m.source_id, m.tags, m.metadata, m.created_at
                    LIMIT $limit
                    """

KEYWORD_QUERY = """
                    MATCH (m:SemanticMemory)
                    WHERE m.agent_id = $agent_id
                      AND (LOWER(m.content) CONTAINS $keyword
                           OR LOWER(m.concept) CONTAINS $keyword)
                    RETURN m.memory_id, m.concept, m.content, m.confidence,
                           m.source_id, m.tags, m.metadata, m.created_at
                    LIMIT $limit
                    """

HOP_QUERY = """
                    MATCH (a:SemanticMemory {memory_id: $sid})-[r:SIMILAR_TO]->(b:SemanticMemory)
                    WHERE b.agent_id = $agent_id
                    RETURN b.memory_id, b.concept, b.content, b.confidence,
                           b.source_id, b.tags, b.created_at, r.weight, b.metadata,
                           r.metadata
                """

#: The second branch of the library's hop query (it joins the two with UNION ALL).
TWO_HOP_QUERY = """
                    MATCH (a:SemanticMemory {memory_id: $sid})-[:SIMILAR_TO]->()-[r2:SIMILAR_TO]->(c:SemanticMemory)
                    WHERE c.agent_id = $agent_id AND c.memory_id <> $sid
                    RETURN c.memory_id, c.concept, c.content, c.confidence,
                           c.source_id, c.tags, c.created_at, r2.weight, c.metadata,
                           r2.metadata
                    """  # noqa: E501 - the library's text, unchanged

SUPERSEDED_QUERY = """
                    MATCH (newer:SemanticMemory)-[r:SUPERSEDES]->(old:SemanticMemory {memory_id: $nid})
                    RETURN newer.memory_id, r.reason, r.temporal_delta
                    LIMIT 1
                    """  # noqa: E501 - the library's text, unchanged

#: One row per episode: memory_id is EpisodicMemory's primary key.
PROVENANCE_QUERY = """
    MATCH (e:EpisodicMemory) WHERE e.memory_id IN $ids
    RETURN e.memory_id, e.source_label
"""

#: Every newer fact of each result fact; a fact with one needs no LIMIT 1 query.
SUPERSEDED_BATCH_QUERY = """
    MATCH (newer:SemanticMemory)-[r:SUPERSEDES]->(old:SemanticMemory)
    WHERE old.memory_id IN $ids
    RETURN old.memory_id, newer.memory_id, r.reason, r.temporal_delta
"""
