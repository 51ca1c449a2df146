"""Temporal chains as a timeline: how a fact's value changed, oldest to newest.

A chain is the set of facts joined by SUPERSEDES or TRANSITIONED_TO edges. The
reference library links every newer fact to every older one (a chain of n
values has n(n-1)/2 edges), memexplorer links neighbours only; either way the
timeline is the chain's facts ordered by ``temporal_index`` then
``created_at``, and each step's value comes from the TRANSITIONED_TO edge
between neighbours when there is one, else from the numbers that changed
between their contents (stores written by the reference have no TRANSITIONED_TO).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from itertools import pairwise
from typing import Any

from .contradiction import NUMBER_PATTERN
from .exceptions import InvalidInputError
from .graphdb import GraphStore
from .hierarchical_schema import fact_columns, fact_from_row
from .knowledge import KnowledgeNode
from .temporal import temporal_index_of

__all__ = ["ChainStep", "TemporalChain", "entity_chains", "fact_chain"]

_CHAIN_RELS = ("SUPERSEDES", "TRANSITIONED_TO")


@dataclass(frozen=True)
class ChainStep:
    """One fact in a chain. ``value`` is what this fact says that its neighbours
    do not; ``previous_value`` what the fact before it said instead."""

    memory_id: str
    concept: str
    content: str
    confidence: float
    created_at: str
    temporal_index: int
    position: int
    value: str
    previous_value: str
    value_from: str  # "transitioned_to", "numbers" or "" (a chain of one)
    current: bool
    superseded_by: str


@dataclass
class TemporalChain:
    """A chain of one agent's facts, oldest first; ``stored_edges`` counts the
    SUPERSEDES and TRANSITIONED_TO edges the store holds among them."""

    agent: str
    steps: list[ChainStep] = field(default_factory=list)
    stored_edges: int = 0

    @property
    def current(self) -> list[ChainStep]:
        return [step for step in self.steps if step.current]

    def to_dict(self) -> dict[str, Any]:
        return {
            "agent": self.agent,
            "length": len(self.steps),
            "stored_edges": self.stored_edges,
            "steps": [asdict(step) for step in self.steps],
        }


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


def _facts(graph: GraphStore, agent: str, ids: set[str]) -> list[KnowledgeNode]:
    rows = graph.rows(
        f"""MATCH (m:SemanticMemory) WHERE m.agent_id = $agent AND m.memory_id IN $ids
            RETURN {fact_columns("m")}""",
        {"agent": agent, "ids": sorted(ids)},
    )
    return [fact_from_row(row) for row in rows]


def _edges(
    graph: GraphStore, ids: set[str], rels: list[str]
) -> tuple[list[tuple[str, str]], dict[tuple[str, str], tuple[str, str]]]:
    """SUPERSEDES pairs (newer, older) and TRANSITIONED_TO values by pair."""
    supersedes: list[tuple[str, str]] = []
    transitions: dict[tuple[str, str], tuple[str, str]] = {}
    params = {"ids": sorted(ids)}
    if "SUPERSEDES" in rels:
        rows = graph.rows(
            """MATCH (a:SemanticMemory)-[:SUPERSEDES]->(b:SemanticMemory)
               WHERE a.memory_id IN $ids AND b.memory_id IN $ids
               RETURN a.memory_id, b.memory_id""",
            params,
        )
        supersedes = [(row[0], row[1]) for row in rows]
    if "TRANSITIONED_TO" in rels:
        rows = graph.rows(
            """MATCH (a:SemanticMemory)-[r:TRANSITIONED_TO]->(b:SemanticMemory)
               WHERE a.memory_id IN $ids AND b.memory_id IN $ids
               RETURN a.memory_id, b.memory_id, r.from_value, r.to_value""",
            params,
        )
        transitions = {(r[0], r[1]): (r[2] or "", r[3] or "") for r in rows}
    return supersedes, transitions


def _changed_numbers(content: str, other: str) -> str:
    """Numbers in ``content`` that ``other`` lacks, in the order they appear."""
    theirs = set(NUMBER_PATTERN.findall(other))
    mine = [n for n in NUMBER_PATTERN.findall(content) if n not in theirs]
    return ", ".join(dict.fromkeys(mine))


def _pair_values(
    older: KnowledgeNode, newer: KnowledgeNode, transitions: dict[tuple[str, str], tuple[str, str]]
) -> tuple[str, str, str]:
    """(old value, new value, where they came from) for two neighbours in time."""
    if (newer.node_id, older.node_id) in transitions:
        new_value, old_value = transitions[(newer.node_id, older.node_id)]
        return old_value, new_value, "transitioned_to"
    return (
        _changed_numbers(older.content, newer.content),
        _changed_numbers(newer.content, older.content),
        "numbers",
    )


def _order_key(node: KnowledgeNode) -> tuple[int, str]:
    return temporal_index_of(node.metadata), node.created_at


def _build(
    agent: str, nodes: list[KnowledgeNode], supersedes: list[tuple[str, str]], transitions: dict
) -> TemporalChain:
    ordered = sorted(nodes, key=_order_key)
    position = {node.node_id: i for i, node in enumerate(ordered)}
    # The nearest newer fact that supersedes each one: the transitive reduction.
    superseded_by: dict[str, str] = {}
    for newer, older in supersedes:
        if newer not in position or older not in position:
            continue
        best = superseded_by.get(older)
        if best is None or position[newer] < position[best]:
            superseded_by[older] = newer
    pairs = [_pair_values(a, b, transitions) for a, b in pairwise(ordered)]
    steps = []
    for i, node in enumerate(ordered):
        if i > 0:
            previous, value, source = pairs[i - 1]
        elif pairs:
            value, _, source = pairs[0]
            previous = ""
        else:
            previous = value = source = ""
        steps.append(
            ChainStep(
                memory_id=node.node_id, concept=node.concept, content=node.content,
                confidence=node.confidence, created_at=node.created_at,
                temporal_index=temporal_index_of(node.metadata), position=i + 1,
                value=value, previous_value=previous, value_from=source,
                current=node.node_id not in superseded_by,
                superseded_by=superseded_by.get(node.node_id, ""),
            )
        )  # fmt: skip
    edges = len(supersedes) + len(transitions)
    return TemporalChain(agent, steps, edges)


def _chain_of(graph: GraphStore, agent: str, memory_id: str, rels: list[str]) -> TemporalChain:
    ids = _component(graph, agent, memory_id, rels)
    supersedes, transitions = _edges(graph, ids, rels)
    return _build(agent, _facts(graph, agent, ids), supersedes, transitions)


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
            hint="Entity names are extracted from facts (e.g. 'sarah chen', 'aws').",
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
