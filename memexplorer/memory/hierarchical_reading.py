"""HierarchicalMemory's reading: Graph RAG retrieval, fact look-ups, statistics.

Every read is scoped to the memory's agent and never writes, so it runs on a
store opened read-only.
"""

from __future__ import annotations

from typing import Any

from memexplorer.memory.hierarchical_schema import fact_columns, fact_from_row
from memexplorer.memory.knowledge import KnowledgeNode, KnowledgeSubgraph
from memexplorer.memory.retrieval_profiles import DEFAULT_PROFILE, Knobs, ProfileRuns
from memexplorer.storage.graph_store import GraphStore

__all__ = ["FactReading"]


#: The keys of the reference's fact dicts (search_facts, get_all_facts), in its order.
_DICT_KEYS = ("content", "concept", "confidence", "node_id", "source_id", "tags", "metadata",
              "created_at")  # fmt: skip


def _as_dict(node: KnowledgeNode) -> dict[str, Any]:
    return {key: getattr(node, key) for key in _DICT_KEYS}


class FactReading:
    """The reading half of HierarchicalMemory (it supplies ``graph`` and ``rel_tables``)."""

    agent_name: str
    graph: GraphStore  # the memory's GraphHandle property

    def rel_tables(self) -> set[str]:
        raise NotImplementedError

    def search_facts(self, query: str, max_nodes: int = 20, **kwargs: Any) -> list[dict[str, Any]]:
        """:meth:`retrieve_subgraph` as plain dicts."""
        subgraph = self.retrieve_subgraph(query, max_nodes=max_nodes, **kwargs)
        return [_as_dict(node) for node in subgraph.nodes]

    def get_all_facts(self, limit: int = 50) -> list[dict[str, Any]]:
        return [_as_dict(node) for node in self.get_all_knowledge(limit)]

    def retrieve_subgraph(
        self,
        query: str,
        max_depth: int = 2,
        max_nodes: int = 20,
        similarity_threshold: float = 0.3,
        profile: str = DEFAULT_PROFILE,
    ) -> KnowledgeSubgraph:
        """Graph RAG retrieval as the agent's library does it (``profile``: see
        :mod:`memexplorer.memory.retrieval_profiles`).

        ``library`` (the default) is amplihack-memory-lib's algorithm, node for
        node and byte for byte in ``to_llm_context()``; ``amplihack-rs`` the
        Rust agent's; ``ranked`` memexplorer's seed-003 ranking, where
        ``max_depth`` 0 keeps only direct matches and their temporal context.
        """
        if not isinstance(query, str):
            return KnowledgeSubgraph(query="")
        knobs = Knobs(max_depth, max_nodes, similarity_threshold)
        runs = ProfileRuns(self.graph, self.agent_name, self.rel_tables(), query, knobs)
        return runs.run(profile)[1]

    def _facts(
        self, where: str, params: dict[str, Any], order: str, limit: int
    ) -> list[KnowledgeNode]:
        rows = self.graph.rows(
            f"""MATCH (m:SemanticMemory) WHERE m.agent_id = $agent AND {where}
                RETURN {fact_columns("m")} ORDER BY {order} LIMIT $limit""",
            {"agent": self.agent_name, "limit": max(int(limit), 0), **params},
        )
        return [fact_from_row(row) for row in rows]

    def get_all_knowledge(self, limit: int = 50) -> list[KnowledgeNode]:
        """The agent's facts, newest first, at most ``limit``."""
        return self._facts("true", {}, "m.created_at DESC", limit)

    def retrieve_by_entity(self, entity_name: str, limit: int = 50) -> list[KnowledgeNode]:
        """Facts whose extracted entity contains the name; falls back to a text match."""
        if not entity_name or not entity_name.strip():
            return []
        params = {"entity": entity_name.strip().lower()}
        found = self._facts(
            "lower(m.entity_name) CONTAINS $entity", params, "m.created_at DESC", limit
        )
        if found:
            return found
        return self._facts(
            "(lower(m.content) CONTAINS $entity OR lower(m.concept) CONTAINS $entity)",
            params, "m.created_at DESC", limit,
        )  # fmt: skip

    def search_by_concept(self, keywords: list[str], limit: int = 30) -> list[KnowledgeNode]:
        """Facts whose concept or content contains any keyword (longer than two letters)."""
        words = [k.strip().lower() for k in keywords or [] if len(k.strip()) > 2]
        if not words:
            return []
        found: dict[str, KnowledgeNode] = {}
        for word in words:
            for node in self._facts(
                "(lower(m.concept) CONTAINS $kw OR lower(m.content) CONTAINS $kw)",
                {"kw": word}, "m.created_at DESC", limit,
            ):  # fmt: skip
                found.setdefault(node.node_id, node)
        return list(found.values())

    def execute_aggregation(self, query_type: str, entity_filter: str = "") -> dict[str, Any]:
        """Counts and lists over the agent's facts, for meta-questions about memory."""
        from memexplorer.memory.hierarchical_aggregation import aggregate

        return aggregate(self.graph, self.agent_name, query_type, entity_filter)

    def get_statistics(self) -> dict[str, Any]:
        graph, agent = self.graph, {"agent": self.agent_name}
        semantic = graph.scalar(
            "MATCH (m:SemanticMemory) WHERE m.agent_id = $agent RETURN count(m)", agent
        )
        episodic = graph.scalar(
            "MATCH (e:EpisodicMemory) WHERE e.agent_id = $agent RETURN count(e)", agent
        )
        stats: dict[str, Any] = {
            "agent_name": self.agent_name,
            "semantic_nodes": semantic,
            "episodic_nodes": episodic,
            "total_experiences": semantic + episodic,
        }
        tables = self.rel_tables()
        for rel in ("SIMILAR_TO", "DERIVES_FROM", "SUPERSEDES", "TRANSITIONED_TO"):
            key = f"{rel.lower()}_edges"
            if rel not in tables:
                stats[key] = 0
                continue
            stats[key] = graph.scalar(
                f"MATCH (a:SemanticMemory)-[r:{rel}]->() WHERE a.agent_id = $agent RETURN count(r)",
                agent,
            )
        return stats
