"""Temporal chains in amplihack-rs's SQLite hierarchical store.

The same timelines as a graph store's (:mod:`.chains` builds them), read with
SQL: the agent's ``supersedes_edges`` and ``transitioned_to_edges`` between two
of its facts, and the facts they join. A chain edge stored twice (a merge
import inserts edges again) counts once, as a pair, like a graph store's.
"""

from __future__ import annotations

from memexplorer.memory.rs_sqlite_schema import SEMANTIC_TABLE
from memexplorer.operator.chain_timeline import timelines
from memexplorer.operator.chain_types import ChainEdges, ChainFact, TemporalChain, chain_fact
from memexplorer.storage.exceptions import InvalidInputError
from memexplorer.storage.sqlite_db import SqliteConnection

__all__ = ["rs_agent_chains", "rs_entity_chains", "rs_fact_chain"]

_CHUNK = 400
_FACT_COLUMNS = "memory_id, concept, content, confidence, created_at, entity_name, metadata"
_BETWEEN = (
    f"JOIN {SEMANTIC_TABLE} a ON a.memory_id = e.source_id "
    f"JOIN {SEMANTIC_TABLE} b ON b.memory_id = e.target_id "
    "WHERE a.agent_id = ? AND b.agent_id = ?"
)


def _edges(connection: SqliteConnection, agent: str, ids: set[str] | None) -> ChainEdges:
    """The agent's chain edges (newer -> older), only among ``ids`` when given."""
    edges = ChainEdges()
    sql = (
        "SELECT e.source_id, e.target_id, e.reason, e.temporal_delta "
        f"FROM supersedes_edges e {_BETWEEN}"
    )
    for new, old, reason, delta in connection.execute(sql, (agent, agent)):
        if ids is None or (new in ids and old in ids):
            edges.supersedes[(new, old)] = (reason or "", delta or "")
    sql = (
        "SELECT e.source_id, e.target_id, e.from_value, e.to_value, e.turn "
        f"FROM transitioned_to_edges e {_BETWEEN}"
    )
    for new, old, was, now, turn in connection.execute(sql, (agent, agent)):
        if ids is None or (new in ids and old in ids):
            edges.transitions[(new, old)] = (was or "", now or "", turn or 0)
    return edges


def _facts(connection: SqliteConnection, agent: str, ids: set[str]) -> list[ChainFact]:
    wanted = sorted(ids)
    facts = []
    for start in range(0, len(wanted), _CHUNK):
        chunk = wanted[start : start + _CHUNK]
        rows = connection.execute(
            f"SELECT {_FACT_COLUMNS} FROM {SEMANTIC_TABLE} WHERE agent_id = ? "
            f"AND memory_id IN ({', '.join('?' * len(chunk))})",
            [agent, *chunk],
        )
        facts += [chain_fact(list(row)) for row in rows]
    return facts


def rs_agent_chains(connection: SqliteConnection, agent: str) -> list[TemporalChain]:
    """Every chain of the agent, longest first, then the most recently changed."""
    edges = _edges(connection, agent, None)
    linked = {node for pair in edges.pairs() for node in pair}
    if not linked:
        return []
    chains = timelines(agent, _facts(connection, agent, linked), edges)
    chains.sort(key=lambda c: (c.last_change, c.concept), reverse=True)
    chains.sort(key=lambda c: len(c.steps), reverse=True)
    return chains


def rs_fact_chain(connection: SqliteConnection, agent: str, memory_id: str) -> TemporalChain:
    """The chain holding one of the agent's facts (a chain of one if it has no edges)."""
    found = connection.execute(
        f"SELECT count(*) FROM {SEMANTIC_TABLE} WHERE memory_id = ? AND agent_id = ?",
        (memory_id, agent),
    ).fetchone()[0]
    if not found:
        raise InvalidInputError(
            f"Agent {agent} has no fact with id {memory_id!r}",
            hint="Fact ids are semantic_memories memory_ids.",
        )
    edges = _edges(connection, agent, None)
    neighbours: dict[str, set[str]] = {}
    for new, old in edges.pairs():
        neighbours.setdefault(new, set()).add(old)
        neighbours.setdefault(old, set()).add(new)
    members, frontier = {memory_id}, [memory_id]
    while frontier:
        frontier = [n for f in frontier for n in neighbours.get(f, ()) if n not in members]
        members.update(frontier)
    facts = _facts(connection, agent, members)
    [chain] = timelines(agent, facts, _edges(connection, agent, members))
    return chain


def rs_entity_chains(connection: SqliteConnection, agent: str, entity: str) -> list[TemporalChain]:
    """The chains of every fact about an entity (its name, any case; else names
    containing it), longest first, as :func:`~.chains.entity_chains` gives them."""
    name = entity.strip().lower()
    if not name:
        raise InvalidInputError("The entity name is empty", hint="Give a name, e.g. --entity aws.")
    rows = connection.execute(
        f"SELECT memory_id, entity_name FROM {SEMANTIC_TABLE} WHERE agent_id = ? "
        "ORDER BY created_at, rowid",
        (agent,),
    ).fetchall()
    about = [r[0] for r in rows if name in (r[1] or "").lower()]
    exact = [r[0] for r in rows if (r[1] or "").lower() == name]
    if not about:
        known = sorted({(r[1] or "").lower() for r in rows if r[1]})
        raise InvalidInputError(
            f"Agent {agent} has no facts about an entity named {entity!r}",
            hint=f"Known entities of {agent}: {', '.join(known) or 'none'}.",
        )
    chains: list[TemporalChain] = []
    seen: set[str] = set()
    for memory_id in exact or about:
        if memory_id not in seen:
            chain = rs_fact_chain(connection, agent, memory_id)
            seen.update(step.memory_id for step in chain.steps)
            chains.append(chain)
    chains.sort(key=lambda c: -len(c.steps))
    return chains
