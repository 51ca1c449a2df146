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
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from itertools import islice
from typing import TYPE_CHECKING, Any

from memexplorer.memory.contradiction import NUMBER_PATTERN
from memexplorer.memory.hierarchical_schema import loads_json
from memexplorer.memory.temporal import temporal_index_of
from memexplorer.storage.exceptions import InvalidInputError
from memexplorer.storage.graphdb import GraphStore

if TYPE_CHECKING:
    import networkx as nx

__all__ = ["ChainEdges", "ChainStep", "TemporalChain", "agent_chains", "entity_chains",
           "fact_chain"]  # fmt: skip

_CHAIN_RELS = ("SUPERSEDES", "TRANSITIONED_TO")
#: At most this many cycles are listed per chain (a dense cyclic chain has very many).
MAX_CYCLES = 10


@dataclass(frozen=True)
class ChainStep:
    """One fact in a chain. ``value`` is what this fact says that the fact it
    replaced did not; ``previous_value`` what that fact said instead."""

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
    entity: str = ""
    #: temporal_index, else the TRANSITIONED_TO turn that introduced this fact, else 0.
    turn: int = 0
    #: The SUPERSEDES edge's properties towards the fact this one replaced.
    reason: str = ""
    temporal_delta: str = ""
    #: Facts this one directly replaced (nearest first) and that directly replaced it.
    supersedes: tuple[str, ...] = ()
    superseders: tuple[str, ...] = ()
    in_cycle: bool = False
    #: Turns missing between the fact this one replaced and this one.
    gap_before: int = 0
    #: metadata confidence_before_supersede: the confidence before a newer fact lowered it.
    confidence_before: float | None = None

    @property
    def forked(self) -> bool:
        return len(self.superseders) > 1

    @property
    def confidence_lowered(self) -> bool:
        return self.confidence_before is not None and self.confidence_before > self.confidence


@dataclass
class TemporalChain:
    """A chain of one agent's facts, oldest first; ``stored_edges`` counts the
    SUPERSEDES and TRANSITIONED_TO edges the store holds among them."""

    agent: str
    steps: list[ChainStep] = field(default_factory=list)
    stored_edges: int = 0
    #: Cycles among the edges, each as memory_ids (at most MAX_CYCLES).
    cycles: list[list[str]] = field(default_factory=list)

    @property
    def current(self) -> list[ChainStep]:
        return [step for step in self.steps if step.current]

    @property
    def concept(self) -> str:
        return self.steps[-1].concept if self.steps else ""

    @property
    def entity(self) -> str:
        return self.steps[-1].entity if self.steps else ""

    @property
    def last_change(self) -> str:
        """When the chain's newest fact was written."""
        return max((step.created_at for step in self.steps), default="")

    @property
    def flags(self) -> list[str]:
        """What an operator should notice, in words."""
        found = [
            ("fork", any(s.forked for s in self.steps)),
            ("cycle", bool(self.cycles)),
            ("gap", any(s.gap_before for s in self.steps)),
            ("confidence lowered", any(s.confidence_lowered for s in self.steps)),
            ("no current value", bool(self.steps) and not self.current),
        ]
        return [name for name, present in found if present]

    def to_dict(self) -> dict[str, Any]:
        return {
            "agent": self.agent,
            "length": len(self.steps),
            "stored_edges": self.stored_edges,
            "flags": self.flags,
            "cycles": self.cycles,
            "steps": [asdict(step) for step in self.steps],
        }


@dataclass(frozen=True)
class _Fact:
    """The columns of a fact a timeline shows (chains of thousands parse only these)."""

    node_id: str
    concept: str
    content: str
    confidence: float
    created_at: str
    entity_name: str
    metadata: dict[str, Any]


#: The SemanticMemory columns of a _Fact, in its field order.
_FACT_COLUMNS = (
    "m.memory_id, m.concept, m.content, m.confidence, m.created_at, m.entity_name, m.metadata"
)


def _fact(row: list[Any]) -> _Fact:
    metadata = loads_json(row[6], {})
    confidence = row[3] if row[3] is not None else 0.0
    if not isinstance(metadata, dict):
        metadata = {}
    return _Fact(
        row[0], row[1] or "", row[2] or "", confidence, row[4] or "", row[5] or "", metadata
    )


@dataclass
class ChainEdges:
    """Chain edges by (newer, older) pair: SUPERSEDES (reason, temporal_delta) and
    TRANSITIONED_TO (from_value = the newer value, to_value = the older, turn)."""

    supersedes: dict[tuple[str, str], tuple[str, str]] = field(default_factory=dict)
    transitions: dict[tuple[str, str], tuple[str, str, int]] = field(default_factory=dict)

    def pairs(self) -> set[tuple[str, str]]:
        return set(self.supersedes) | set(self.transitions)

    def count(self) -> int:
        return len(self.supersedes) + len(self.transitions)


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


def _facts(graph: GraphStore, agent: str, ids: set[str]) -> list[_Fact]:
    rows = graph.rows(
        f"""MATCH (m:SemanticMemory) WHERE m.agent_id = $agent AND m.memory_id IN $ids
            RETURN {_FACT_COLUMNS}""",
        {"agent": agent, "ids": sorted(ids)},
    )
    return [_fact(row) for row in rows]


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


# -- building the timeline ----------------------------------------------------------------
def _changed_numbers(content: str, other: str) -> str:
    """Numbers in ``content`` that ``other`` lacks, in the order they appear."""
    theirs = set(NUMBER_PATTERN.findall(other))
    mine = [n for n in NUMBER_PATTERN.findall(content) if n not in theirs]
    return ", ".join(dict.fromkeys(mine))


def _pair_values(older: _Fact, newer: _Fact, edges: ChainEdges) -> tuple[str, str, str]:
    """(old value, new value, where they came from) for a fact and the one it replaced."""
    transition = edges.transitions.get((newer.node_id, older.node_id))
    if transition is not None:
        return transition[1], transition[0], "transitioned_to"
    return (
        _changed_numbers(older.content, newer.content),
        _changed_numbers(newer.content, older.content),
        "numbers",
    )


def _turns(nodes: dict[str, _Fact], edges: ChainEdges) -> dict[str, int]:
    turns = {node_id: temporal_index_of(node.metadata) for node_id, node in nodes.items()}
    for (newer, _), (_, _, turn) in edges.transitions.items():
        if newer in turns and not temporal_index_of(nodes[newer].metadata):
            turns[newer] = max(turns[newer], int(turn))
    return turns


def _confidence_before(node: _Fact) -> float | None:
    value = node.metadata.get("confidence_before_supersede")
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def _cyclic_parts(
    graph: nx.DiGraph, key: Callable[[str], tuple[int, str, str]]
) -> tuple[list[tuple[set[str], list[list[str]]]], set[tuple[str, str]]]:
    """The strongly connected parts with their cycles, and the edges that point
    forward in time (by ``key``) within them: setting those aside leaves a DAG."""
    import networkx as nx  # imported here: it costs 0.13 s of every start

    cycles: list[tuple[set[str], list[list[str]]]] = []
    against: set[tuple[str, str]] = set()
    for members in nx.strongly_connected_components(graph):
        first = next(iter(members))
        if len(members) == 1 and not graph.has_edge(first, first):
            continue
        part = graph.subgraph(members)
        found = [_rotated(c) for c in islice(nx.simple_cycles(part), MAX_CYCLES)]
        cycles.append((members, found))
        against.update((a, b) for a, b in part.edges if key(a) <= key(b))
    return cycles, against


@dataclass
class _Shape:
    """A set of chains' structure: the facts in timeline order, what each directly
    replaced (nearest first) and what directly replaced it, the chain of each fact."""

    order: list[str]
    older: dict[str, list[str]]
    newer: dict[str, list[str]]
    chain_of: dict[str, int]
    cycles: list[tuple[set[str], list[list[str]]]]


def _shape(graph: nx.DiGraph, key: Callable[[str], tuple[int, str, str]]) -> _Shape:
    """One topological sort and one transitive reduction for every chain at once."""
    import networkx as nx  # imported here: it costs 0.13 s of every start

    cycles, against = _cyclic_parts(graph, key)
    dag = graph
    if against:
        dag = graph.copy()
        dag.remove_edges_from(against)
    order = sorted(graph, key=key)
    position = {node_id: i for i, node_id in enumerate(order)}
    # Sorted by turn is the topological order with turns breaking ties, unless an edge
    # says a fact with a later turn was replaced by one with an earlier turn.
    if any(position[a] < position[b] for a, b in dag.edges):
        order = list(nx.lexicographical_topological_sort(dag.reverse(copy=False), key=key))
        position = {node_id: i for i, node_id in enumerate(order)}
    older: dict[str, list[str]] = nx.to_dict_of_lists(nx.transitive_reduction(dag))
    newer: dict[str, list[str]] = {node_id: [] for node_id in order}
    for node_id in order:  # in order, so each list comes out nearest first
        for replaced in older[node_id]:
            newer[replaced].append(node_id)
    for replaced in older.values():
        replaced.sort(key=position.__getitem__, reverse=True)
    # A fact that claims to replace a later one (an edge closing a cycle) still counts.
    for a, b in sorted(against, key=lambda pair: position[pair[0]]):
        newer[b].append(a)
    chain_of: dict[str, int] = {}
    for index, members in enumerate(nx.weakly_connected_components(graph)):
        chain_of.update(dict.fromkeys(members, index))
    return _Shape(order, older, newer, chain_of, cycles)


def _timelines(agent: str, nodes: list[_Fact], edges: ChainEdges) -> list[TemporalChain]:
    """The timeline of every chain among ``nodes`` (a chain is a weak component)."""
    import networkx as nx  # imported here: it costs 0.13 s of every start

    by_id = {node.node_id: node for node in nodes}
    turns = _turns(by_id, edges)
    graph = nx.DiGraph()
    graph.add_nodes_from(by_id)
    graph.add_edges_from((a, b) for a, b in edges.pairs() if a in by_id and b in by_id)
    shape = _shape(graph, lambda node_id: (turns[node_id], by_id[node_id].created_at, node_id))
    chains = [TemporalChain(agent) for _ in range(max(shape.chain_of.values(), default=-1) + 1)]
    for newer_id, _ in [*edges.supersedes, *edges.transitions]:
        if newer_id in shape.chain_of:
            chains[shape.chain_of[newer_id]].stored_edges += 1
    in_cycle: set[str] = set()
    for members, found in shape.cycles:
        in_cycle.update(members)
        chain = chains[shape.chain_of[next(iter(members))]]
        chain.cycles = sorted(chain.cycles + found)[:MAX_CYCLES]
    for node_id in shape.order:
        chain = chains[shape.chain_of[node_id]]
        node, older, newer = by_id[node_id], shape.older[node_id], shape.newer[node_id]
        previous = value = source = reason = delta = ""
        gap = 0
        if older:
            previous, value, source = _pair_values(by_id[older[0]], node, edges)
            reason, delta = edges.supersedes.get((node_id, older[0]), ("", ""))
            if turns[node_id] > 0 and turns[older[0]] > 0:
                gap = max(0, turns[node_id] - turns[older[0]] - 1)
        elif newer:
            value, _, source = _pair_values(node, by_id[newer[0]], edges)
        chain.steps.append(
            ChainStep(
                memory_id=node_id, concept=node.concept, content=node.content,
                confidence=node.confidence, created_at=node.created_at,
                temporal_index=temporal_index_of(node.metadata), position=len(chain.steps) + 1,
                value=value, previous_value=previous, value_from=source, current=not newer,
                superseded_by=newer[0] if newer else "", entity=node.entity_name,
                turn=turns[node_id], reason=reason, temporal_delta=delta,
                supersedes=tuple(older), superseders=tuple(newer),
                in_cycle=node_id in in_cycle, gap_before=gap,
                confidence_before=_confidence_before(node),
            )
        )  # fmt: skip
    return chains


def _rotated(cycle: list[str]) -> list[str]:
    """A cycle starting at its smallest id, so the same cycle always reads the same."""
    start = cycle.index(min(cycle))
    return cycle[start:] + cycle[:start]


# -- the API ------------------------------------------------------------------------------
def _chain_of(graph: GraphStore, agent: str, memory_id: str, rels: list[str]) -> TemporalChain:
    ids = _component(graph, agent, memory_id, rels)
    edges = _edges(graph, rels, "a.memory_id IN $ids AND b.memory_id IN $ids", {"ids": sorted(ids)})
    [chain] = _timelines(agent, _facts(graph, agent, ids), edges)
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
            RETURN {_FACT_COLUMNS}""",
        {"agent": agent},
    )
    nodes = [_fact(row) for row in rows if row[0] in linked]
    chains = _timelines(agent, nodes, edges)
    chains.sort(key=lambda c: (c.last_change, c.concept), reverse=True)
    chains.sort(key=lambda c: len(c.steps), reverse=True)
    return chains
