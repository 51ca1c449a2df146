"""Short-lived memory: sensory observations (with a TTL) and working-memory slots.

Sensory items expire ``ttl_seconds`` after they are recorded (a TTL of 0 is
expired at once) and stay on disk until pruned; attending to one copies it
into an episode. Working memory holds at most ``WORKING_MEMORY_CAPACITY`` slots
per task: pushing into a full task first evicts its least relevant slot.
"""

from __future__ import annotations

from memexplorer.memory.cognitive_base import CognitiveBase, new_id
from memexplorer.memory.cognitive_schema import (
    sensory_from_row,
    slot_from_row,
)
from memexplorer.memory.memory_types import SensoryItem, WorkingMemorySlot

__all__ = ["WORKING_MEMORY_CAPACITY", "ShortTermMemory"]

#: Slots kept per task; pushing into a full task evicts its least relevant slot.
WORKING_MEMORY_CAPACITY = 20


class ShortTermMemory(CognitiveBase):
    """Sensory and working memory of one agent."""

    WORKING_MEMORY_CAPACITY = WORKING_MEMORY_CAPACITY

    # -- sensory -------------------------------------------------------------------------
    def record_sensory(self, modality: str, raw_data: str, ttl_seconds: int = 300) -> str:
        """Record an observation that expires after ``ttl_seconds``; return its id."""
        graph = self._writable()
        node_id, now = new_id("sen"), self.clock()
        with graph.transaction():
            order = graph.rows(
                "MATCH (s:SensoryMemory) WHERE s.agent_id = $agent RETURN max(s.observation_order)",
                {"agent": self.agent_name},
                reuse=True,
            )[0][0]
            graph.execute(
                """CREATE (:SensoryMemory {node_id: $id, agent_id: $agent, modality: $modality,
                     raw_data: $raw, observation_order: $seq, expires_at: $expires,
                     created_at: $now})""",
                {"id": node_id, "agent": self.agent_name, "modality": modality, "raw": raw_data,
                 "seq": (order or 0) + 1, "expires": now + int(ttl_seconds), "now": now},
                reuse=True,
            )  # fmt: skip
        return node_id

    def get_recent_sensory(self, limit: int = 10) -> list[SensoryItem]:
        """Unexpired observations, newest first."""
        rows = self._rows(
            "SensoryMemory",
            f"""MATCH (s:SensoryMemory) WHERE s.agent_id = $agent AND s.expires_at > $now
                RETURN {sensory_from_row.returning("s")}
                ORDER BY s.observation_order DESC LIMIT $limit""",
            now=self.clock(),
            limit=max(int(limit), 0),
        )
        return [sensory_from_row(row) for row in rows]

    def prune_expired_sensory(self) -> int:
        """Delete expired observations (and their ATTENDED_TO edges); return how many."""
        now = self.clock()
        expired = self._count("SensoryMemory", "n.expires_at <= $now", now=now)
        if expired:
            self._writable().execute(
                """MATCH (s:SensoryMemory) WHERE s.agent_id = $agent AND s.expires_at <= $now
                   DETACH DELETE s""",
                {"agent": self.agent_name, "now": now},
            )
        return expired

    def attend_to_sensory(self, sensory_id: str, reason: str) -> str | None:
        """Promote an unexpired observation to an episode; None if it is unknown or expired."""
        now = self.clock()
        rows = self._rows(
            "SensoryMemory",
            """MATCH (s:SensoryMemory {node_id: $id})
               WHERE s.agent_id = $agent AND s.expires_at > $now RETURN s.modality, s.raw_data""",
            id=sensory_id,
            now=now,
        )
        if not rows:
            return None
        modality, raw_data = rows[0]
        graph = self._writable()
        with graph.transaction():
            # The reference's wording, so attended episodes read alike in every store.
            content = f"[{modality}] {raw_data} -- attended: {reason}"
            episode_id = self._create_episode(graph, content, "sensory-attention", None, None)
            graph.execute(
                """MATCH (s:SensoryMemory {node_id: $sid}), (e:EpisodicMemory {node_id: $eid})
                   CREATE (s)-[:ATTENDED_TO {attended_at: $now}]->(e)""",
                {"sid": sensory_id, "eid": episode_id, "now": now},
            )
        return episode_id

    # -- working -------------------------------------------------------------------------
    def push_working(
        self, slot_type: str, content: str, task_id: str, relevance: float = 1.0
    ) -> str:
        """Add a slot to a task's context, evicting the least relevant one when full
        (of equally low ones the first written, as the library's ``min()`` picks)."""
        graph = self._writable()
        node_id = new_id("wrk")
        with graph.transaction():
            held = graph.rows(
                """MATCH (w:WorkingMemory) WHERE w.agent_id = $agent AND w.task_id = $task
                   RETURN w.node_id ORDER BY w.relevance, offset(id(w))""",
                {"agent": self.agent_name, "task": task_id},
                reuse=True,
            )
            evict = [row[0] for row in held[: max(len(held) - self.WORKING_MEMORY_CAPACITY + 1, 0)]]
            if evict:
                graph.execute(
                    "UNWIND $ids AS id MATCH (w:WorkingMemory {node_id: id}) DELETE w",
                    {"ids": evict},
                )
            graph.execute(
                """CREATE (:WorkingMemory {node_id: $id, agent_id: $agent, slot_type: $type,
                     content: $content, relevance: $relevance, task_id: $task,
                     created_at: $now})""",
                {"id": node_id, "agent": self.agent_name, "type": slot_type, "content": content,
                 "relevance": float(relevance), "task": task_id, "now": self.clock()},
                reuse=True,
            )  # fmt: skip
        return node_id

    def get_working(self, task_id: str) -> list[WorkingMemorySlot]:
        """A task's slots, most relevant first; ties in insertion order, as the library's."""
        rows = self._rows(
            "WorkingMemory",
            f"""MATCH (w:WorkingMemory) WHERE w.agent_id = $agent AND w.task_id = $task
                RETURN {slot_from_row.returning("w")}
                ORDER BY w.relevance DESC, offset(id(w))""",
            task=task_id,
        )
        return [slot_from_row(row) for row in rows]

    def clear_working(self, task_id: str) -> int:
        """Drop every slot of a task; return how many there were."""
        count = self._count("WorkingMemory", "n.task_id = $task", task=task_id)
        if count:
            self._writable().execute(
                "MATCH (w:WorkingMemory) WHERE w.agent_id = $agent AND w.task_id = $task DELETE w",
                {"agent": self.agent_name, "task": task_id},
            )
        return count
