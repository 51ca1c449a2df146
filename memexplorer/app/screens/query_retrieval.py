"""One retrieval the query box asks for, as the agent would run it (off the UI thread).

The graph stores run the engine's own retrieval through the session's MemoryPool (on
the store the browsers already hold open); amplihack-rs's SQLite stores run the
amplihack-rs profile on the file.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from memexplorer.app.operator_session import OperatorSession
from memexplorer.memory.knowledge import KnowledgeSubgraph
from memexplorer.memory.retrieval_explain import Explanation, explain_retrieval
from memexplorer.memory.retrieval_indexed import index_pending
from memexplorer.memory.retrieval_profiles import Knobs
from memexplorer.operator.retrieval_rs_sqlite import rs_sqlite_retrieve

__all__ = ["Answer", "Request", "retrieve_answer"]


@dataclass(frozen=True)
class Request:
    """One retrieval: the text and the knobs it ran with."""

    text: str
    max_nodes: int
    threshold: float
    profile: str

    @property
    def knobs(self) -> Knobs:
        """The retrieval's knobs (the query box sets no depth: the profiles' own)."""
        return Knobs(max_nodes=self.max_nodes, similarity_threshold=self.threshold)


@dataclass(frozen=True)
class Answer:
    """What a request returned: the facts, their ``to_llm_context()`` texts (by
    confidence, chronological) and the steps that chose them."""

    request: Request
    subgraph: KnowledgeSubgraph
    contexts: tuple[str, str]
    explanation: Explanation


def retrieve_answer(
    session: OperatorSession, store: Path, agent: str, request: Request, *, sqlite: bool,
    indexing: Callable[[str], None],
) -> Answer:  # fmt: skip
    """Run ``request`` for ``agent``; ``indexing`` hears, before a large store's first
    query builds its keyword index, what is happening."""
    if sqlite:  # the amplihack-rs profile on the SQLite store (``ranked`` reads graph stores)
        graph = rs_sqlite_retrieve(store, agent, request.text, profile=request.profile,
                                   knobs=request.knobs)  # fmt: skip
        why = Explanation(request.profile, graph, note="ranked reads graph stores only")
        texts = (graph.to_llm_context(), graph.to_llm_context(chronological=True))
        return Answer(request, graph, texts, why)
    memory = session.memory(store, agent)
    if index_pending(memory.graph, memory.agent_name):
        indexing(f"building the keyword index (once per store state), then {request.text!r}…")
    explanation = explain_retrieval(
        memory.graph,
        memory.agent_name,
        memory.rel_tables(),
        request.text,
        profile=request.profile,
        knobs=request.knobs,
    )
    subgraph = explanation.subgraph
    contexts = (subgraph.to_llm_context(), subgraph.to_llm_context(chronological=True))
    return Answer(request, subgraph, contexts, explanation)
