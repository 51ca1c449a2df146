"""A set of chains' timelines: the transitive reduction of their edges, in topological
order, each step's value, and what an operator should notice (forks, cycles, gaps,
lowered confidence). Works on facts and edges already read, from any store.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from itertools import islice
from typing import TYPE_CHECKING

from memexplorer.memory.contradiction import NUMBER_PATTERN
from memexplorer.memory.temporal import temporal_index_of
from memexplorer.operator.chain_types import ChainEdges, ChainFact, ChainStep, TemporalChain

if TYPE_CHECKING:
    import networkx as nx

__all__ = ["MAX_CYCLES", "timelines"]

#: At most this many cycles are listed per chain (a dense cyclic chain has very many).
MAX_CYCLES = 10


def _changed_numbers(content: str, other: str) -> str:
    """Numbers in ``content`` that ``other`` lacks, in the order they appear."""
    theirs = set(NUMBER_PATTERN.findall(other))
    mine = [n for n in NUMBER_PATTERN.findall(content) if n not in theirs]
    return ", ".join(dict.fromkeys(mine))


def _pair_values(older: ChainFact, newer: ChainFact, edges: ChainEdges) -> tuple[str, str, str]:
    """(old value, new value, where they came from) for a fact and the one it replaced."""
    transition = edges.transitions.get((newer.node_id, older.node_id))
    if transition is not None:
        return transition[1], transition[0], "transitioned_to"
    return (
        _changed_numbers(older.content, newer.content),
        _changed_numbers(newer.content, older.content),
        "numbers",
    )


def _turns(nodes: dict[str, ChainFact], edges: ChainEdges) -> dict[str, int]:
    turns = {node_id: temporal_index_of(node.metadata) for node_id, node in nodes.items()}
    for (newer, _), (_, _, turn) in edges.transitions.items():
        if newer in turns and not temporal_index_of(nodes[newer].metadata):
            turns[newer] = max(turns[newer], int(turn))
    return turns


def _confidence_before(node: ChainFact) -> float | None:
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


def timelines(agent: str, nodes: list[ChainFact], edges: ChainEdges) -> list[TemporalChain]:
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
