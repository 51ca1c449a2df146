"""Which retrieval algorithm answers a query: the retrieval profiles.

Why: "why did my agent say that?" is only answered by the algorithm the agent
ran. ``library`` is amplihack-memory-lib's retrieve_subgraph (the default: the
engine stands in for that library), ``amplihack-rs`` the Rust agent's
GraphRagRetriever, and ``ranked`` memexplorer's own seven-step ranking (seed
003), kept as the reference for what the others missed.
"""

from __future__ import annotations

from typing import Literal, cast

from memexplorer.memory.knowledge import KnowledgeSubgraph
from memexplorer.storage.exceptions import InvalidInputError
from memexplorer.storage.graph_store import GraphStore

__all__ = ["DEFAULT_PROFILE", "PROFILES", "Profile", "check_profile", "retrieve_with_profile"]

Profile = Literal["library", "amplihack-rs", "ranked"]
PROFILES: tuple[Profile, ...] = ("library", "amplihack-rs", "ranked")
DEFAULT_PROFILE: Profile = "library"


def check_profile(profile: str) -> Profile:
    """The profile named, or InvalidInputError naming the ones there are."""
    if profile not in PROFILES:
        raise InvalidInputError(
            f"Unknown retrieval profile {profile!r}", hint=f"Use one of: {', '.join(PROFILES)}."
        )
    return cast(Profile, profile)


def retrieve_with_profile(
    graph: GraphStore,
    agent_id: str,
    rel_tables: set[str],
    query: str,
    *,
    profile: str = DEFAULT_PROFILE,
    max_depth: int = 2,
    max_nodes: int = 20,
    similarity_threshold: float = 0.3,
) -> KnowledgeSubgraph:
    """Run one profile's retrieval; a blank query returns an empty subgraph in all of them."""
    # Imported here: the CLI's parser lists PROFILES without loading the retrievers.
    from memexplorer.memory.retrieval_by_key import library_retriever, ranked_retriever
    from memexplorer.memory.retrieval_indexed import keyword_index_for
    from memexplorer.memory.retrieval_rs import RsRetriever

    profile = check_profile(profile)
    # A blank query never reads a keyword: no index is built for it.
    index = keyword_index_for(graph, agent_id) if query.strip() else None
    if profile == "library":
        return library_retriever(graph, agent_id, index).retrieve(query, max_depth, max_nodes)
    if profile == "amplihack-rs":
        retriever = RsRetriever(graph, agent_id, rel_tables)
        retriever.index = index
        return retriever.retrieve(query, max_depth, max_nodes, similarity_threshold)
    if not query.strip() or max_nodes <= 0:
        return KnowledgeSubgraph(query=query)
    ranked = ranked_retriever(graph, agent_id, rel_tables, index)
    return ranked.retrieve(query, max_nodes, similarity_threshold, max_depth > 0)
