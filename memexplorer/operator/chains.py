"""Temporal chains as a timeline: how a fact's value changed, oldest to newest.

A chain is the set of facts joined by SUPERSEDES or TRANSITIONED_TO edges. The
reference library links every newer fact to every older one (a chain of n
values has n(n-1)/2 edges), memexplorer links neighbours only; either way the
timeline is the transitive reduction of those edges (what each fact directly
replaced), its facts in topological order with ``temporal_index`` (or the
TRANSITIONED_TO ``turn``) then ``created_at`` breaking ties. Each step's value
comes from the TRANSITIONED_TO edge to the fact it replaced when there is one,
else from the numbers that changed between their contents (stores written by
the reference have no TRANSITIONED_TO).

What an operator should notice is flagged, not hidden: forks (one fact
replaced by two newer ones), cycles, gaps in the turns, lowered confidence.

This module reads a graph store's chains; the data is in :mod:`.chain_types`,
the timeline is built by :mod:`.chain_timeline`.
"""

from __future__ import annotations

from typing import Any

from memexplorer.operator.chain_timeline import MAX_CYCLES, timelines
from memexplorer.operator.chain_types import (
    FACT_COLUMNS,
    ChainEdges,
    ChainFact,
    ChainStep,
    TemporalChain,
    chain_fact,
)
from memexplorer.storage.exceptions import InvalidInputError
from memexplorer.storage.graphdb import GraphStore

__all__ = ["MAX_CYCLES", "ChainEdges", "ChainStep", "TemporalChain", "agent_chains",
           "entity_chains", "fact_chain"]  # fmt: skip

_CHAIN_RELS = ("SUPERSEDES", "TRANSITIONED_TO")


# -- reading ------------------------------------------------------------------------------
def _present_rels(graph: GraphStore) -> list[str]:
    tables = set(graph.rel_tables())
    return [rel for rel in _CHAIN_RELS if rel in tables]


def _component(graph: GraphStore, agent: str, start: str, rels: list[str]) -> set[str]:
    """Every fact of the agent reachable from ``start`` over chain edges (either way)."""
    members = {start}
    frontier = [start]
    while frontier and rels:
        rows = graph.rows(
            f"""MATCH (a:SemanticMemory)-[:{"|".join(rels)}]-(b:SemanticMemory)
                WHERE a.memory_id IN $ids AND b.agent_id = $agent
                RETURN DISTINCT b.memory_id""",
            {"ids": frontier, "agent": agent},
        )
        frontier = [row[0] for row in rows if row[0] not in members]
        members.update(frontier)
    return members


def _facts(graph: GraphStore, agent: str, ids: set[str]) -> list[ChainFact]:
    rows = graph.rows(
        f"""MATCH (m:SemanticMemory) WHERE m.agent_id = $agent AND m.memory_id IN $ids
            RETURN {FACT_COLUMNS}""",
        {"agent": agent, "ids": sorted(ids)},
    )
    return [chain_fact(row) for row in rows]


def _edges(graph: GraphStore, rels: list[str], where: str, params: dict[str, Any]) -> ChainEdges:
    """The chain edges between facts ``a`` (newer) and ``b`` (older) that ``where`` keeps."""
    edges = ChainEdges()
    if "SUPERSEDES" in rels:
        rows = graph.rows(
            f"""MATCH (a:SemanticMemory)-[r:SUPERSEDES]->(b:SemanticMemory) WHERE {where}
                RETURN a.memory_id, b.memory_id, r.reason, r.temporal_delta""",
            params,
        )
        edges.supersedes = {(r[0], r[1]): (r[2] or "", r[3] or "") for r in rows}
    if "TRANSITIONED_TO" in rels:
        rows = graph.rows(
            f"""MATCH (a:SemanticMemory)-[r:TRANSITIONED_TO]->(b:SemanticMemory) WHERE {where}
                RETURN a.memory_id, b.memory_id, r.from_value, r.to_value, r.turn""",
            params,
        )
        edges.transitions = {(r[0], r[1]): (r[2] or "", r[3] or "", r[4] or 0) for r in rows}
    return edges


# -- the API ------------------------------------------------------------------------------
def _chain_of(graph: GraphStore, agent: str, memory_id: str, rels: list[str]) -> TemporalChain:
    ids = _component(graph, agent, memory_id, rels)
    edges = _edges(graph, rels, "a.memory_id IN $ids AND b.memory_id IN $ids", {"ids": sorted(ids)})
    [chain] = timelines(agent, _facts(graph, agent, ids), edges)
    return chain


def fact_chain(graph: GraphStore, agent: str, memory_id: str) -> TemporalChain:
    """The chain holding one of the agent's facts (a chain of one if it has no edges)."""
    found = graph.rows(
        "MATCH (m:SemanticMemory) WHERE m.memory_id = $id AND m.agent_id = $agent RETURN count(m)",
        {"id": memory_id, "agent": agent},
    )
    if not found or not found[0][0]:
        raise InvalidInputError(
            f"Agent {agent} has no fact with id {memory_id!r}",
            hint="Fact ids are SemanticMemory memory_ids; `memexplorer query` shows them.",
        )
    return _chain_of(graph, agent, memory_id, _present_rels(graph))


#: How many entity names an unknown-name error lists before "and N more".
KNOWN_ENTITIES_SHOWN = 20


def _known_entities_hint(graph: GraphStore, agent: str) -> str:
    """The agent's entity names (most facts first), so a mistyped name can be corrected."""
    rows = graph.rows(
        """MATCH (m:SemanticMemory)
           WHERE m.agent_id = $agent AND m.entity_name IS NOT NULL AND m.entity_name <> ''
           RETURN lower(m.entity_name) AS name, count(*) AS facts
           ORDER BY facts DESC, name""",
        {"agent": agent},
    )
    names = [str(row[0]) for row in rows]
    if not names:
        return f"Agent {agent} has no facts with an entity name."
    shown = ", ".join(names[:KNOWN_ENTITIES_SHOWN])
    more = len(names) - KNOWN_ENTITIES_SHOWN
    tail = f" and {more} more" if more > 0 else ""
    return f"Known entities of {agent}: {shown}{tail}."


def entity_chains(graph: GraphStore, agent: str, entity: str) -> list[TemporalChain]:
    """The chains of every fact about an entity, longest first.

    Facts whose extracted entity name is ``entity`` (any case) count; when none
    is, those whose name contains it. Facts no edge joins come as chains of one.
    """
    name = entity.strip().lower()
    if not name:
        raise InvalidInputError("The entity name is empty", hint="Give a name, e.g. --entity aws.")
    rows = graph.rows(
        """MATCH (m:SemanticMemory)
           WHERE m.agent_id = $agent AND lower(m.entity_name) CONTAINS $name
           RETURN m.memory_id, lower(m.entity_name) = $name ORDER BY m.created_at""",
        {"agent": agent, "name": name},
    )
    exact = [row for row in rows if row[1]]
    rows = exact or rows
    if not rows:
        raise InvalidInputError(
            f"Agent {agent} has no facts about an entity named {entity!r}",
            hint=_known_entities_hint(graph, agent),
        )
    rels = _present_rels(graph)
    chains: list[TemporalChain] = []
    seen: set[str] = set()
    for memory_id, _ in rows:
        if memory_id in seen:
            continue
        chain = _chain_of(graph, agent, memory_id, rels)
        seen.update(step.memory_id for step in chain.steps)
        chains.append(chain)
    chains.sort(key=lambda c: -len(c.steps))
    return chains


def agent_chains(graph: GraphStore, agent: str) -> list[TemporalChain]:
    """Every chain of the agent (facts joined by at least one edge), longest first,
    then the most recently changed. Three queries whatever the number of chains:
    the agent's SUPERSEDES edges, its TRANSITIONED_TO edges, the facts they join."""
    if not graph.has_table("SemanticMemory") or "memory_id" not in {
        name for name, _ in graph.columns("SemanticMemory")
    }:
        raise InvalidInputError(
            "This store holds no SemanticMemory facts, so no temporal chains",
            hint="Chains live in HierarchicalMemory stores.",
        )
    rels = _present_rels(graph)
    where = "a.agent_id = $agent AND b.agent_id = $agent"
    edges = _edges(graph, rels, where, {"agent": agent})
    linked = {node_id for pair in edges.pairs() for node_id in pair}
    if not linked:
        return []
    # Facts with a chain edge, found by pattern: far faster in kuzu than IN a long list.
    rows = graph.rows(
        f"""MATCH (m:SemanticMemory)
            WHERE m.agent_id = $agent AND EXISTS {{ MATCH (m)-[:{"|".join(rels)}]-() }}
            RETURN {FACT_COLUMNS}""",
        {"agent": agent},
    )
    nodes = [chain_fact(row) for row in rows if row[0] in linked]
    chains = timelines(agent, nodes, edges)
    chains.sort(key=lambda c: (c.last_change, c.concept), reverse=True)
    chains.sort(key=lambda c: len(c.steps), reverse=True)
    return chains
