"""CognitiveMemory: six memory types for one agent in a Kuzu store (seeds 000, 001).

The public API is the reference library's, so agent code runs unchanged. What
differs on purpose: an existing store opens read-only and switches to writing
only on the first write (reading a running agent's store never locks or changes
it); several agents on one path in one process share a single open database
(kuzu allows one read-write Database per file per process); lookups by id are
scoped to the agent; and search never returns a fact without a query keyword.

Sensory and working memory live in :mod:`.cognitive_short_term`, procedures and
intentions in :mod:`.cognitive_plans`, connection handling in :mod:`.cognitive_base`,
fact search in :mod:`.cognitive_search`; episodes and facts here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from memexplorer.memory.cognitive_base import new_id
from memexplorer.memory.cognitive_plans import (
    PROSPECTIVE_STATUS_PENDING,
    PROSPECTIVE_STATUS_RESOLVED,
    PROSPECTIVE_STATUS_TRIGGERED,
    PlanMemory,
)
from memexplorer.memory.cognitive_schema import (
    consolidated_from_row,
    dumps,
    episode_from_row,
)
from memexplorer.memory.cognitive_search import (
    GRAPH_FETCH_MULTIPLIER,
    MAX_SEARCH_KEYWORDS,
    MIN_TOKEN_LENGTH,
    SIMILARITY_CANDIDATE_LIMIT,
    SIMILARITY_THRESHOLD,
    all_facts,
    search_facts,
    similar_facts,
)
from memexplorer.memory.cognitive_short_term import WORKING_MEMORY_CAPACITY, ShortTermMemory
from memexplorer.memory.memory_types import (
    ConsolidatedEpisode,
    EpisodicMemory,
    SemanticFact,
)
from memexplorer.storage.exceptions import InvalidInputError

__all__ = [
    "GRAPH_FETCH_MULTIPLIER",
    "MAX_SEARCH_KEYWORDS",
    "MIN_TOKEN_LENGTH",
    "PROSPECTIVE_STATUS_PENDING",
    "PROSPECTIVE_STATUS_RESOLVED",
    "PROSPECTIVE_STATUS_TRIGGERED",
    "SIMILARITY_CANDIDATE_LIMIT",
    "SIMILARITY_THRESHOLD",
    "WORKING_MEMORY_CAPACITY",
    "CognitiveMemory",
]


class CognitiveMemory(ShortTermMemory, PlanMemory):
    """Sensory, working, episodic, semantic, procedural and prospective memory
    of one agent; ``agent_id`` isolates agents that share a store.

    ``CognitiveMemory(agent_name, db_path, buffer_pool_size=0, max_db_size=0,
    *, mode="auto")``: see :class:`.cognitive_base.CognitiveBase` for the modes.
    """

    # -- episodic ------------------------------------------------------------------------
    def store_episode(
        self,
        content: str,
        source_label: str,
        temporal_index: int | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> str:
        """Store an event; ``temporal_index`` defaults to one past the agent's latest."""
        graph = self._writable()
        with graph.transaction():
            return self._create_episode(graph, content, source_label, temporal_index, metadata)

    def get_episodes(
        self, limit: int = 20, include_compressed: bool = False
    ) -> list[EpisodicMemory]:
        """Episodes, latest temporal_index first; consolidated ones only on request."""
        rows = self._rows(
            "EpisodicMemory",
            f"""MATCH (e:EpisodicMemory)
                WHERE e.agent_id = $agent AND ($everything OR NOT coalesce(e.compressed, false))
                RETURN {episode_from_row.returning("e")}
                ORDER BY e.temporal_index DESC, e.created_at DESC LIMIT $limit""",
            everything=bool(include_compressed),
            limit=max(int(limit), 0),
        )
        return [episode_from_row(row) for row in rows]

    def consolidate_episodes(
        self, batch_size: int = 10, summarizer: Callable[[list[str]], str] | None = None
    ) -> str | None:
        """Replace the oldest ``batch_size`` uncompressed episodes by one summary.

        Returns the ConsolidatedEpisode id, or None while fewer episodes wait.
        The default summary joins the contents with " | ".
        """
        if int(batch_size) < 1:
            raise InvalidInputError(f"batch_size must be at least 1, got {batch_size}")
        rows = self._rows(
            "EpisodicMemory",
            """MATCH (e:EpisodicMemory)
               WHERE e.agent_id = $agent AND NOT coalesce(e.compressed, false)
               RETURN e.node_id, e.content ORDER BY e.temporal_index, e.created_at LIMIT $limit""",
            limit=int(batch_size),
        )
        if len(rows) < int(batch_size):
            return None
        contents = [row[1] or "" for row in rows]
        summary = summarizer(contents) if summarizer is not None else " | ".join(contents)
        graph = self._writable()
        node_id, now = new_id("con"), self.clock()
        with graph.transaction():
            graph.execute(
                """CREATE (:ConsolidatedEpisode {node_id: $id, agent_id: $agent,
                     summary: $summary, original_count: $originals, created_at: $now})""",
                {"id": node_id, "agent": self.agent_name, "summary": str(summary),
                 "originals": len(rows), "now": now},
            )  # fmt: skip
            graph.execute(
                """UNWIND $ids AS eid
                   MATCH (c:ConsolidatedEpisode {node_id: $id}), (e:EpisodicMemory {node_id: eid})
                   SET e.compressed = true
                   CREATE (c)-[:CONSOLIDATES {consolidated_at: $now}]->(e)""",
                {"ids": [row[0] for row in rows], "id": node_id, "now": now},
            )
        return node_id

    def get_consolidated(self, limit: int = 20) -> list[ConsolidatedEpisode]:
        """Consolidation summaries, newest first (read-only; beyond the reference API)."""
        rows = self._rows(
            "ConsolidatedEpisode",
            f"""MATCH (c:ConsolidatedEpisode) WHERE c.agent_id = $agent
                RETURN {consolidated_from_row.returning("c")}
                ORDER BY c.created_at DESC, c.node_id LIMIT $limit""",
            limit=max(int(limit), 0),
        )
        return [consolidated_from_row(row) for row in rows]

    # -- semantic ------------------------------------------------------------------------
    def store_fact(
        self,
        concept: str,
        content: str,
        confidence: float = 1.0,
        source_id: str = "",
        tags: list[str] | None = None,
        temporal_metadata: dict[str, Any] | None = None,
        source_episode_id: str | None = None,
    ) -> str:
        """Store a fact with SIMILAR_TO edges to similar recent facts and, given
        one of this agent's episodes, a DERIVES_FROM edge; return its id."""
        if not 0.0 <= float(confidence) <= 1.0:
            raise InvalidInputError(f"confidence must be in [0, 1], got {confidence}")
        graph = self._writable()
        node_id, now = new_id("sem"), self.clock()
        similar = similar_facts(graph, self.agent_name, concept, content)
        with graph.transaction():
            graph.execute(
                """CREATE (:SemanticMemory {node_id: $id, agent_id: $agent, concept: $concept,
                     content: $content, confidence: $confidence, source_id: $source,
                     tags: $tags, metadata: $metadata, created_at: $now})""",
                {"id": node_id, "agent": self.agent_name, "concept": concept, "content": content,
                 "confidence": float(confidence), "source": source_id or "",
                 "tags": dumps(list(tags or [])), "metadata": dumps(temporal_metadata or {}),
                 "now": now},
                reuse=True,
            )  # fmt: skip
            for other_id, score in similar:
                graph.execute(
                    """MATCH (a:SemanticMemory {node_id: $a}), (b:SemanticMemory {node_id: $b})
                       CREATE (a)-[:SIMILAR_TO {similarity_score: $score}]->(b)""",
                    {"a": node_id, "b": other_id, "score": score},
                    reuse=True,
                )
            if source_episode_id:
                # An unknown (or another agent's) episode matches nothing: no edge, no error.
                graph.execute(
                    """MATCH (s:SemanticMemory {node_id: $sid}), (e:EpisodicMemory {node_id: $eid})
                       WHERE e.agent_id = $agent
                       CREATE (s)-[:DERIVES_FROM {derived_at: $now}]->(e)""",
                    {"sid": node_id, "eid": source_episode_id, "agent": self.agent_name,
                     "now": now},
                    reuse=True,
                )  # fmt: skip
        return node_id

    def get_all_facts(self, limit: int = 50) -> list[SemanticFact]:
        """The agent's facts, most confident first."""
        if not self._has("SemanticMemory"):
            return []
        return all_facts(self.graph, self.agent_name, limit)

    def search_facts(
        self, query: str, limit: int = 10, min_confidence: float = 0.0
    ) -> list[SemanticFact]:
        """Facts holding a query keyword, best concept match first; "" gives all facts.

        See :mod:`memexplorer.memory.cognitive_search` for the ranking.
        """
        if not self._has("SemanticMemory"):
            return []
        expand = self._has("SIMILAR_TO")
        return search_facts(self.graph, self.agent_name, query, limit, min_confidence, expand)
