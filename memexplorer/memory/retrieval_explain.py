"""What the agent's retrieval missed, and which of its steps cut each fact.

Why: operators come to the query box asking "why did my agent not see this?".
Beside the agent's answer (its profile) this lists the facts memexplorer's
``ranked`` profile puts in and the agent's left out, each with the step that
cut it; :func:`why_not` walks any one fact through the profile's steps.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from memexplorer.memory.hierarchical_schema import fact_columns, fact_from_row
from memexplorer.memory.knowledge import KnowledgeNode, KnowledgeSubgraph
from memexplorer.memory.retrieval_explain_steps import library_steps, rs_steps
from memexplorer.memory.retrieval_profiles import DEFAULT_KNOBS, Knobs, ProfileRuns
from memexplorer.memory.retrieval_query import query_entities
from memexplorer.storage.graph_store import GraphStore

__all__ = ["Explanation", "Step", "explain_retrieval", "fact_by_id"]


@dataclass
class Step:
    """One step of a profile's retrieval as it applied to one fact."""

    step: str
    outcome: str
    cut: bool = False

    def as_dict(self) -> dict[str, Any]:
        return {"step": self.step, "outcome": self.outcome, "cut": self.cut}


@dataclass
class Explanation:
    """The agent's answer, the facts ``ranked`` adds, and why each was left out."""

    profile: str
    subgraph: KnowledgeSubgraph
    missed: list[tuple[KnowledgeNode, list[Step]]] = field(default_factory=list)
    #: Why nothing was compared, when ``ranked`` could not run (an SQLite store).
    note: str = ""
    _walk: Any = None

    def why_not(self, fact: KnowledgeNode) -> list[Step]:
        """Every step of the profile, applied to ``fact`` (kept or not)."""
        return self._walk(fact)

    def missed_as_dicts(self) -> list[dict[str, Any]]:
        out = []
        for node, steps in self.missed:
            cut = next((s for s in steps if s.cut), None)
            out.append(
                {
                    "node_id": node.node_id,
                    "concept": node.concept,
                    "content": node.content,
                    "confidence": node.confidence,
                    "cut_by": cut.step if cut else "",
                    "reason": cut.outcome if cut else "",
                    "steps": [s.as_dict() for s in steps],
                }
            )
        return out


def _similar_edges(graph: GraphStore, node_id: str, rel_tables: set[str]) -> list[list[Any]]:
    """(other id, weight, outgoing?) of every SIMILAR_TO edge at a fact."""
    if "SIMILAR_TO" not in rel_tables:
        return []
    # The {memory_id: $id} form is a primary-key lookup; a WHERE on it scans the table.
    outgoing = graph.rows(
        """MATCH (a:SemanticMemory {memory_id: $id})-[r:SIMILAR_TO]->(b:SemanticMemory)
           RETURN b.memory_id, r.weight, true""",
        {"id": node_id},
        reuse=True,
    )
    incoming = graph.rows(
        """MATCH (b:SemanticMemory)-[r:SIMILAR_TO]->(a:SemanticMemory {memory_id: $id})
           RETURN b.memory_id, r.weight, false""",
        {"id": node_id},
        reuse=True,
    )
    return outgoing + incoming


def fact_by_id(graph: GraphStore, node_id: str) -> KnowledgeNode | None:
    rows = graph.rows(
        f"MATCH (m:SemanticMemory {{memory_id: $id}}) RETURN {fact_columns('m')}",
        {"id": node_id},
    )
    return fact_from_row(rows[0]) if rows else None


def explain_retrieval(
    graph: GraphStore,
    agent_id: str,
    rel_tables: set[str],
    query: str,
    *,
    profile: str = "library",
    knobs: Knobs = DEFAULT_KNOBS,
) -> Explanation:
    """Run ``profile`` and ``ranked`` with ``knobs``; list what ranked has that the
    profile left out."""
    runs = ProfileRuns(graph, agent_id, rel_tables, query, knobs)
    runner, subgraph = runs.run(profile)
    context = {
        "query": query,
        "max_nodes": knobs.max_nodes,
        "max_depth": knobs.max_depth,
        "threshold": knobs.similarity_threshold,
        "entities": query_entities(query),
        "kept": [n.node_id for n in subgraph.nodes],
    }

    def walk(fact: KnowledgeNode, full: bool = True) -> list[Step]:
        def edges() -> list[list[Any]]:
            return _similar_edges(graph, fact.node_id, rel_tables)

        if profile == "library":
            raw = library_steps(fact, runner.trace, edges, context, full)
        elif profile == "amplihack-rs":
            raw = rs_steps(fact, runner.trace, edges, context, full)
        else:
            kept = fact.node_id in context["kept"]
            raw = [
                ("ranked", "in the ranked answer" if kept else "not in the ranked answer", False)
            ]
        return [Step(*item) for item in raw]

    explanation = Explanation(profile, subgraph, _walk=walk)
    if profile != "ranked":
        _, reference = runs.run("ranked")
        kept = set(context["kept"])
        for node in reference.nodes:
            if node.node_id not in kept:
                # Up to the step that cut it; why_not walks every step.
                explanation.missed.append((node, walk(node, full=False)))
    return explanation
