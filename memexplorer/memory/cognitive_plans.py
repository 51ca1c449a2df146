"""Procedural and prospective memory: named procedures that count their uses, and
intentions that fire when a trigger word shows up (pending, triggered, resolved).
"""

from __future__ import annotations

from memexplorer.memory.cognitive_base import CognitiveBase, new_id
from memexplorer.memory.cognitive_schema import (
    dumps,
    procedure_from_row,
    prospective_from_row,
)
from memexplorer.memory.cognitive_search import keyword_filter, query_keywords
from memexplorer.memory.memory_types import ProceduralMemory, ProspectiveMemory

__all__ = [
    "PROSPECTIVE_STATUS_PENDING",
    "PROSPECTIVE_STATUS_RESOLVED",
    "PROSPECTIVE_STATUS_TRIGGERED",
    "PlanMemory",
]

PROSPECTIVE_STATUS_PENDING = "pending"
PROSPECTIVE_STATUS_TRIGGERED = "triggered"
PROSPECTIVE_STATUS_RESOLVED = "resolved"


class PlanMemory(CognitiveBase):
    """Procedural and prospective memory of one agent."""

    # -- procedural ----------------------------------------------------------------------
    def store_procedure(
        self, name: str, steps: list[str], prerequisites: list[str] | None = None
    ) -> str:
        """Store a named list of steps; return its id."""
        graph = self._writable()
        node_id = new_id("proc")
        graph.execute(
            """CREATE (:ProceduralMemory {node_id: $id, agent_id: $agent, name: $name,
                 steps: $steps, prerequisites: $prerequisites, usage_count: 0,
                 created_at: $now})""",
            {"id": node_id, "agent": self.agent_name, "name": name, "steps": dumps(list(steps)),
             "prerequisites": dumps(list(prerequisites or [])), "now": self.clock()},
        )  # fmt: skip
        return node_id

    def list_procedures(self, limit: int = 50) -> list[ProceduralMemory]:
        """Procedures, most used first, without counting a use (beyond the reference API)."""
        return self._procedures([], limit)

    def _procedures(self, keywords: list[str], limit: int) -> list[ProceduralMemory]:
        params = {f"k{i}": word for i, word in enumerate(keywords)}
        match = f"AND ({keyword_filter('p', ('name', 'steps'), len(keywords))})" if keywords else ""
        rows = self._rows(
            "ProceduralMemory",
            f"""MATCH (p:ProceduralMemory) WHERE p.agent_id = $agent {match}
                RETURN {procedure_from_row.returning("p")}
                ORDER BY p.usage_count DESC, offset(id(p)) LIMIT $limit""",
            limit=max(int(limit), 0),
            **params,
        )
        return [procedure_from_row(row) for row in rows]

    def recall_procedure(self, query: str, limit: int = 5) -> list[ProceduralMemory]:
        """Procedures whose name or steps hold a query keyword, most used first.

        Each one returned counts as used: its stored usage_count goes up by one
        after the read, so the returned objects show the count before this call.
        An empty query recalls the most used procedures.
        """
        found = self._procedures(query_keywords(query), limit)
        if found:
            self._writable().execute(
                """UNWIND $ids AS pid MATCH (p:ProceduralMemory {node_id: pid})
                   SET p.usage_count = coalesce(p.usage_count, 0) + 1""",
                {"ids": [p.node_id for p in found]},
            )
        return found

    # -- prospective ---------------------------------------------------------------------
    def store_prospective(
        self, description: str, trigger_condition: str, action_on_trigger: str, priority: int = 1
    ) -> str:
        """Remember to do ``action_on_trigger`` when the trigger shows up; return its id."""
        graph = self._writable()
        node_id = new_id("pro")
        graph.execute(
            """CREATE (:ProspectiveMemory {node_id: $id, agent_id: $agent, desc_text: $text,
                 trigger_condition: $trigger, action_on_trigger: $action, status: $status,
                 priority: $priority, created_at: $now})""",
            {"id": node_id, "agent": self.agent_name, "text": description,
             "trigger": trigger_condition, "action": action_on_trigger,
             "status": PROSPECTIVE_STATUS_PENDING, "priority": int(priority), "now": self.clock()},
        )  # fmt: skip
        return node_id

    def list_prospective(
        self, status: str | None = None, limit: int = 50
    ) -> list[ProspectiveMemory]:
        """Intentions, highest priority first, optionally of one status (read-only;
        beyond the reference API)."""
        rows = self._rows(
            "ProspectiveMemory",
            f"""MATCH (p:ProspectiveMemory)
                WHERE p.agent_id = $agent AND ($status IS NULL OR p.status = $status)
                RETURN {prospective_from_row.returning("p")}
                ORDER BY p.priority DESC, offset(id(p)) LIMIT $limit""",
            status=status,
            limit=max(int(limit), 0),
        )
        return [prospective_from_row(row) for row in rows]

    def check_triggers(self, content: str) -> list[ProspectiveMemory]:
        """Fire each pending intention with a trigger word in ``content``.

        Fired ones become "triggered" (and are returned, highest priority
        first); a triggered or resolved intention never fires again.
        """
        text = (content or "").lower()
        fired = [
            item
            for item in self.list_prospective(PROSPECTIVE_STATUS_PENDING, limit=1 << 31)
            if any(word in text for word in item.trigger_condition.lower().split())
        ]
        if fired:
            self._writable().execute(
                """UNWIND $ids AS pid MATCH (p:ProspectiveMemory {node_id: pid})
                   SET p.status = $status""",
                {"ids": [item.node_id for item in fired], "status": PROSPECTIVE_STATUS_TRIGGERED},
            )
            for item in fired:
                item.status = PROSPECTIVE_STATUS_TRIGGERED
        return fired

    def resolve_prospective(self, node_id: str) -> None:
        """Mark one of this agent's intentions resolved (an unknown id does nothing)."""
        if not self._count("ProspectiveMemory", "n.node_id = $id", id=node_id):
            return
        self._writable().execute(
            """MATCH (p:ProspectiveMemory {node_id: $id}) WHERE p.agent_id = $agent
               SET p.status = $status""",
            {"id": node_id, "agent": self.agent_name, "status": PROSPECTIVE_STATUS_RESOLVED},
        )
