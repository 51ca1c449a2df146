"""HierarchicalMemory's writing: a fact with its provenance, supersession and
similarity edges, an episode, and the rules both libraries share for them.

The rules (:func:`similar_to_edges`, :func:`lowered_confidence`) are plain
functions, so correction and merging (memexplorer.operator) apply the very same.
"""

from __future__ import annotations

import json
import uuid
from collections import deque
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any

from memexplorer.memory.contradiction import detect_contradiction
from memexplorer.memory.entity_extraction import extract_entity_name
from memexplorer.memory.hierarchical_schema import loads_json
from memexplorer.memory.knowledge import MemoryCategory, MemoryClassifier
from memexplorer.memory.similarity import compute_similarity
from memexplorer.memory.temporal import Supersession, TemporalFact, TemporalIndex, temporal_index_of
from memexplorer.storage.exceptions import InvalidInputError
from memexplorer.storage.graph_store import GraphStore

__all__ = [
    "CONTRADICTION_CHECK_THRESHOLD",
    "SIMILARITY_EDGE_THRESHOLD",
    "SIMILARITY_WINDOW",
    "FactWriting",
    "lowered_confidence",
    "similar_to_edges",
]

#: New facts are compared with this many of the agent's most recent facts.
SIMILARITY_WINDOW = 50
#: A SIMILAR_TO edge is written for scores above this.
SIMILARITY_EDGE_THRESHOLD = 0.3
#: Above this score the edge also records a numeric contradiction, if any.
CONTRADICTION_CHECK_THRESHOLD = 0.5


def _now() -> str:
    """UTC, naive ISO with microseconds: the reference's format, so ordering holds."""
    return datetime.now(UTC).replace(tzinfo=None).isoformat(timespec="microseconds")


def similar_to_edges(
    content: str, concept: str, tags: list[str], others: Iterable[dict[str, Any]]
) -> list[tuple[str, float, dict[str, Any]]]:
    """(other id, score, contradiction metadata) of the SIMILAR_TO edges a new fact
    gets: scores above 0.3, contradictions checked above 0.5 (both libraries' rule)."""
    new_node = {"content": content, "concept": concept, "tags": tags}
    edges = []
    for other in others:
        score = compute_similarity(new_node, other)
        if score <= SIMILARITY_EDGE_THRESHOLD:
            continue
        meta: dict[str, Any] = {}
        if score > CONTRADICTION_CHECK_THRESHOLD:
            meta = detect_contradiction(content, other["content"], concept, other["concept"])
        edges.append((other["id"], score, meta))
    return edges


def lowered_confidence(
    confidence: float | None, metadata: dict[str, Any]
) -> tuple[float, dict[str, Any]] | None:
    """A superseded fact's new (confidence, metadata): halved, at least 0.1, the old
    value kept in the metadata; None when an earlier supersession lowered it already."""
    if "confidence_before_supersede" in metadata:
        return None
    return max(0.1, (confidence or 0.0) * 0.5), {
        **metadata,
        "confidence_before_supersede": confidence,
    }


class FactWriting:
    """The writing half of HierarchicalMemory (it supplies ``_writable``)."""

    agent_name: str
    _classifier: MemoryClassifier
    _recent: deque[dict[str, Any]] | None
    _temporal: TemporalIndex | None

    def _writable(self) -> GraphStore:
        raise NotImplementedError

    def _recent_facts(self, graph: GraphStore) -> deque[dict[str, Any]]:
        if self._recent is None:
            rows = graph.rows(
                """MATCH (m:SemanticMemory) WHERE m.agent_id = $agent
                   RETURN m.memory_id, m.content, m.concept, m.tags
                   ORDER BY m.created_at DESC LIMIT $limit""",
                {"agent": self.agent_name, "limit": SIMILARITY_WINDOW},
            )
            self._recent = deque(
                (
                    {"id": r[0], "content": r[1] or "", "concept": r[2] or "",
                     "tags": loads_json(r[3], [])}
                    for r in reversed(rows)
                ),
                maxlen=SIMILARITY_WINDOW,
            )  # fmt: skip
        return self._recent

    def store_knowledge(
        self,
        content: str,
        concept: str = "",
        confidence: float = 0.8,
        category: MemoryCategory | None = None,
        source_id: str = "",
        tags: list[str] | None = None,
        temporal_metadata: dict[str, Any] | None = None,
    ) -> str:
        """Store a fact with its provenance, temporal and similarity edges; return its id."""
        if not isinstance(content, str) or not content.strip():
            raise InvalidInputError("content cannot be empty")
        if not 0.0 <= float(confidence) <= 1.0:
            raise InvalidInputError(f"confidence must be in [0, 1], got {confidence}")
        graph = self._writable()
        category = category or self._classifier.classify(content, concept)
        node_id = str(uuid.uuid4())
        tags = list(tags or [])
        metadata: dict[str, Any] = {"category": MemoryCategory(category).value}
        metadata.update(temporal_metadata or {})
        fact = {
            "memory_id": node_id, "concept": concept, "content": content.strip(),
            "confidence": float(confidence), "source_id": source_id or "",
            "agent_id": self.agent_name, "tags": json.dumps(tags),
            "metadata": json.dumps(metadata), "created_at": _now(),
            "entity_name": extract_entity_name(content, concept),
        }  # fmt: skip
        recent = self._recent_facts(graph)
        similar = [
            {"id": other, "w": score, "m": json.dumps(meta) if meta else ""}
            for other, score, meta in similar_to_edges(content, concept, tags, recent)
        ]
        index = temporal_index_of(temporal_metadata)
        temporal = TemporalFact(node_id, concept, fact["content"], fact["entity_name"], index)
        assert self._temporal is not None
        plan = self._temporal.plan(temporal) if index > 0 else []
        with graph.transaction():
            graph.execute(
                """CREATE (:SemanticMemory {memory_id: $memory_id, concept: $concept,
                     content: $content, confidence: $confidence, source_id: $source_id,
                     agent_id: $agent_id, tags: $tags, metadata: $metadata,
                     created_at: $created_at, entity_name: $entity_name})""",
                fact,
                reuse=True,
            )
            if source_id:
                graph.execute(
                    """MATCH (s:SemanticMemory {memory_id: $sid}),
                             (e:EpisodicMemory {memory_id: $eid})
                       WHERE e.agent_id = $agent
                       CREATE (s)-[:DERIVES_FROM {extraction_method: 'llm_extraction',
                                                  confidence: 1.0}]->(e)""",
                    {"sid": node_id, "eid": source_id, "agent": self.agent_name},
                    reuse=True,
                )
            for step in plan:
                self._write_supersession(graph, step)
            # One compiled statement per edge: kuzu looks both ends up by
            # primary key, where an UNWIND over the edges joins against a scan
            # of the whole table (27 ms at 100k facts against ~0.5 ms an edge).
            for edge in similar:
                graph.execute(
                    """MATCH (a:SemanticMemory {memory_id: $sid}),
                             (b:SemanticMemory {memory_id: $bid})
                       CREATE (a)-[:SIMILAR_TO {weight: $w, metadata: $m}]->(b)""",
                    {"sid": node_id, "bid": edge["id"], "w": edge["w"], "m": edge["m"]},
                    reuse=True,
                )
        recent.append({"id": node_id, "content": content, "concept": concept, "tags": tags})
        if index > 0:
            self._temporal.add(temporal)
        return node_id

    @staticmethod
    def _write_supersession(graph: GraphStore, step: Supersession) -> None:
        """Seed 003's supersession: SUPERSEDES and TRANSITIONED_TO, the older fact's
        confidence halved (at least 0.1) once, its first value kept in metadata."""
        ids = {"new": step.newer.memory_id, "old": step.older.memory_id}
        graph.execute(
            """MATCH (n:SemanticMemory {memory_id: $new}), (o:SemanticMemory {memory_id: $old})
               CREATE (n)-[:SUPERSEDES {reason: $reason, temporal_delta: $delta}]->(o)
               CREATE (n)-[:TRANSITIONED_TO {from_value: $new_value, to_value: $old_value,
                                            turn: $turn, transition_type: 'update'}]->(o)""",
            {
                **ids,
                "reason": step.reason,
                "delta": step.delta,
                "new_value": step.new_value,
                "old_value": step.old_value,
                "turn": step.newer.temporal_index,
            },
            reuse=True,
        )
        rows = graph.rows(
            "MATCH (o:SemanticMemory {memory_id: $old}) RETURN o.confidence, o.metadata",
            {"old": step.older.memory_id},
            reuse=True,
        )
        lowered = lowered_confidence(rows[0][0], loads_json(rows[0][1], {}))
        if lowered is None:
            return
        graph.execute(
            "MATCH (o:SemanticMemory {memory_id: $old}) SET o.confidence = $c, o.metadata = $m",
            {"old": step.older.memory_id, "c": lowered[0], "m": json.dumps(lowered[1])},
            reuse=True,
        )

    def store_episode(self, content: str, source_label: str = "") -> str:
        """Store raw source content (an episode); return its id."""
        if not isinstance(content, str) or not content.strip():
            raise InvalidInputError("content cannot be empty")
        graph = self._writable()
        episode_id = str(uuid.uuid4())
        graph.execute(
            """CREATE (:EpisodicMemory {memory_id: $id, content: $content,
                 source_label: $label, agent_id: $agent, tags: '[]', metadata: '{}',
                 created_at: $created_at})""",
            {"id": episode_id, "content": content.strip(), "label": source_label or "",
             "agent": self.agent_name, "created_at": _now()},
        )  # fmt: skip
        return episode_id

    def store_fact(
        self, content: str, concept: str = "", confidence: float = 0.8, **kwargs: Any
    ) -> str:
        """Alias of :meth:`store_knowledge` (argument order: content, concept)."""
        return self.store_knowledge(content, concept, confidence, **kwargs)
