"""The ``amplihack-rs`` retrieval profile: the Rust agent's GraphRagRetriever over a store.

Why: agents built on amplihack-rs retrieve with
``crates/amplihack-agent-core/src/graph_rag_retriever.rs``, which differs from
the Python library: keywords are the query's whitespace-separated words longer
than two BYTES (not lowercased before the length test, not deduplicated); per
keyword the top ``max_nodes`` semantic facts by confidence; SIMILAR_TO in both
directions at or above ``min_similarity`` for ``max_depth`` rounds, each
neighbour list sorted by weight; then a stable sort by confidence and a trim.

The Rust retriever walks in-memory vectors, so "ties keep insertion order"
becomes, on a store, ties kept in the order the rows were written: the node's
and the edge's offset in their tables.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from memexplorer.memory.hierarchical_schema import fact_columns, fact_from_row
from memexplorer.memory.keyword_index import KeywordIndex
from memexplorer.memory.knowledge import KnowledgeEdge, KnowledgeNode
from memexplorer.memory.library_context import LibrarySubgraph
from memexplorer.memory.retrieval_indexed import rs_top_rows
from memexplorer.storage.graph_store import GraphStore

__all__ = ["RsRetriever", "RsTrace", "rs_keywords", "rs_split_whitespace"]

#: str.isspace() characters Rust's char::is_whitespace does not split on.
_NOT_RUST_WHITESPACE = "\x1c\x1d\x1e\x1f"


def rs_keywords(query: str) -> list[str]:
    """``query.split_whitespace().filter(|w| w.len() > 2)``: byte length, order and repeats kept."""
    return [w for w in rs_split_whitespace(query) if len(w.encode("utf-8")) > 2]


def rs_split_whitespace(text: str) -> list[str]:
    """Rust's ``str::split_whitespace``: the words between runs of Unicode whitespace."""
    words, current = [], []
    for char in text:
        if char.isspace() and char not in _NOT_RUST_WHITESPACE:
            if current:
                words.append("".join(current))
            current = []
        else:
            current.append(char)
    if current:
        words.append("".join(current))
    return words


_KEYWORD = f"""
    MATCH (m:SemanticMemory)
    WHERE m.agent_id = $agent AND (lower(m.content) CONTAINS $keyword
                                   OR lower(m.concept) CONTAINS $keyword)
    RETURN {fact_columns("m")}
    ORDER BY m.confidence DESC, offset(id(m))
    LIMIT $limit
"""

_NEIGHBOURS = f"""
    MATCH (a:SemanticMemory {{memory_id: $node}})-[r:SIMILAR_TO]-(b:SemanticMemory)
    WHERE b.agent_id = $agent AND r.weight >= $min
    RETURN r.weight, {fact_columns("b")}
    ORDER BY r.weight DESC, offset(id(r))
"""


@dataclass
class RsTrace:
    """What each step of the Rust retrieval did, for explaining a miss."""

    keywords: list[str] = field(default_factory=list)
    #: Each keyword's top max_nodes by confidence.
    tops: dict[str, list[str]] = field(default_factory=dict)
    seeds: list[str] = field(default_factory=list)
    expanded_seeds: list[str] = field(default_factory=list)
    expanded: list[str] = field(default_factory=list)
    ranked: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)


class RsRetriever:
    """Runs amplihack-rs's retrieve_subgraph for one agent on one open store."""

    def __init__(self, graph: GraphStore, agent_id: str, rel_tables: set[str]) -> None:
        self.graph = graph
        self.agent_id = agent_id
        self.has_similar = "SIMILAR_TO" in rel_tables
        self.trace = RsTrace()
        #: The keyword index answering keyword_search, where the store has one.
        self.index: KeywordIndex | None = None

    def keyword_search(self, keyword: str, limit: int) -> list[KnowledgeNode]:
        """The ``limit`` most confident facts whose content or concept holds it.

        The Rust code keeps nodes of category Semantic; every SemanticMemory row
        is one (the category in a fact's metadata is the library's classifier
        guess, which the Rust agent's own store does not have).
        """
        lower = keyword.strip().lower()
        if not lower or limit <= 0:
            return []
        rows = None
        if self.index is not None:
            rows = rs_top_rows(self.graph, self.index, self.agent_id, lower, limit)
        if rows is None:
            params = {"agent": self.agent_id, "keyword": lower, "limit": limit}
            rows = self.graph.rows(_KEYWORD, params, reuse=True)
        return [fact_from_row(row) for row in rows]

    def similar_to_expand(self, node_id: str, min_similarity: float) -> list[tuple[Any, float]]:
        if not self.has_similar:
            return []
        rows = self.graph.rows(
            _NEIGHBOURS,
            {"node": node_id, "agent": self.agent_id, "min": float(min_similarity)},
            reuse=True,
        )
        return [(fact_from_row(row[1:]), row[0]) for row in rows]

    def retrieve(
        self, query: str, max_depth: int = 2, max_nodes: int = 20, min_similarity: float = 0.3
    ) -> LibrarySubgraph:
        if not query.strip():
            return LibrarySubgraph(query=query)
        seen: set[str] = set()
        nodes: list[KnowledgeNode] = []
        edges: list[KnowledgeEdge] = []
        trace = self.trace
        trace.keywords = rs_keywords(query)
        for keyword in trace.keywords:
            top = self.keyword_search(keyword, max_nodes)
            trace.tops[keyword] = [n.node_id for n in top]
            for node in top:
                if node.node_id not in seen:
                    seen.add(node.node_id)
                    node.metadata["retrieved_because"] = [{"kind": "keyword", "terms": [keyword]}]
                    nodes.append(node)
        to_expand = trace.seeds = [n.node_id for n in nodes]
        for _ in range(max_depth):
            if len(seen) >= max_nodes:
                break
            next_seeds: list[str] = []
            for seed in to_expand:
                if len(seen) >= max_nodes:
                    break
                trace.expanded_seeds.append(seed)
                for neighbour, weight in self.similar_to_expand(seed, min_similarity):
                    edges.append(KnowledgeEdge(seed, neighbour.node_id, "SIMILAR_TO", weight, {}))
                    if neighbour.node_id not in seen and len(seen) < max_nodes:
                        seen.add(neighbour.node_id)
                        next_seeds.append(neighbour.node_id)
                        trace.expanded.append(neighbour.node_id)
                        reason = {"kind": "similar_to", "from": seed, "weight": weight}
                        neighbour.metadata["retrieved_because"] = [reason]
                        nodes.append(neighbour)
            to_expand = next_seeds
        nodes.sort(key=lambda n: -n.confidence)
        trace.ranked = [n.node_id for n in nodes]
        trace.kept = trace.ranked[:max_nodes]
        return LibrarySubgraph(nodes=nodes[:max_nodes], edges=edges, query=query)
