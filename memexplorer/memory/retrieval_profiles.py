"""Which retrieval algorithm answers a query: the retrieval profiles.

Why: "why did my agent say that?" is only answered by the algorithm the agent
ran. ``library`` is amplihack-memory-lib's retrieve_subgraph (the default: the
engine stands in for that library), ``amplihack-rs`` the Rust agent's
GraphRagRetriever, and ``ranked`` memexplorer's own seven-step ranking (seed
003), kept as the reference for what the others missed.
"""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING, Any, Literal, NamedTuple, cast

from memexplorer.memory.knowledge import KnowledgeSubgraph
from memexplorer.storage.exceptions import InvalidInputError
from memexplorer.storage.graph_store import GraphStore

if TYPE_CHECKING:
    from memexplorer.memory.keyword_index import KeywordIndex

__all__ = [
    "DEFAULT_KNOBS",
    "DEFAULT_PROFILE",
    "PROFILES",
    "Knobs",
    "Profile",
    "ProfileRuns",
    "check_profile",
]

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


class Knobs(NamedTuple):
    """retrieve_subgraph's knobs, as every profile takes them."""

    max_depth: int = 2
    max_nodes: int = 20
    similarity_threshold: float = 0.3


#: retrieve_subgraph's own defaults.
DEFAULT_KNOBS = Knobs()


class ProfileRuns:
    """One query's retrievals on one agent's store, by any profile, sharing one
    keyword index (built when first needed; a blank query never reads one)."""

    def __init__(
        self, graph: GraphStore, agent_id: str, rel_tables: set[str], query: str, knobs: Knobs
    ) -> None:
        self.graph, self.agent_id, self.rel_tables = graph, agent_id, rel_tables
        self.query, self.knobs = query, knobs

    @cached_property
    def index(self) -> KeywordIndex | None:
        from memexplorer.memory.retrieval_indexed import keyword_index_for

        return keyword_index_for(self.graph, self.agent_id) if self.query.strip() else None

    def run(self, profile: str) -> tuple[Any, KnowledgeSubgraph]:
        """The profile's retriever (its ``trace`` says why; None for ``ranked``,
        which keeps none) and its answer; a blank query's answer is empty in all."""
        # Imported here: the CLI's parser lists PROFILES without loading the retrievers.
        from memexplorer.memory.retrieval_by_key import library_retriever, ranked_retriever
        from memexplorer.memory.retrieval_rs import RsRetriever

        profile = check_profile(profile)
        graph, agent_id, query, index = self.graph, self.agent_id, self.query, self.index
        max_depth, max_nodes, threshold = self.knobs
        if profile == "library":
            retriever = library_retriever(graph, agent_id, index)
            return retriever, retriever.retrieve(query, max_depth, max_nodes)
        if profile == "amplihack-rs":
            retriever = RsRetriever(graph, agent_id, self.rel_tables)
            retriever.index = index
            return retriever, retriever.retrieve(query, max_depth, max_nodes, threshold)
        if not query.strip() or max_nodes <= 0:
            return None, KnowledgeSubgraph(query=query)
        ranked = ranked_retriever(graph, agent_id, self.rel_tables, index)
        return None, ranked.retrieve(query, max_nodes, threshold, max_depth > 0)
