"""The credential audit of a Kuzu or LadybugDB store: every STRING column of every
node and rel table, read from the store's own catalog.

Each column is read with queries that return only candidate rows (a needle in
the lowered text, or a value shaped like base64 of JSON); Python decides.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from memexplorer.operator.audit_findings import (
    Collector,
    FindingLocation,
    candidate_needles,
)
from memexplorer.storage.graph_counts import agent_column
from memexplorer.storage.graphdb import GraphStore, identifier
from memexplorer.storage.stored_json import BASE64_JSON_REGEX

__all__ = ["scan_graph"]


def _cypher_filters(value: str, needles: tuple[str, ...] | None) -> list[Filter]:
    """The candidate queries of one column; together they return every value
    that may hold a secret, in plain text or in base64 of JSON.

    The text is lowered once per row (lowering it per needle made the scan
    several times slower). Base64 needs its own query: the engine evaluates
    every branch of an OR on every row, so a regex there would run on all of
    them, where the cheap tests before it in an AND spare most rows.
    """
    if needles is None:
        return [Filter("", f"{value} IS NOT NULL", {})]
    tests = " OR ".join(f"low CONTAINS $n{i}" for i in range(len(needles)))
    shape = (
        f"substring({value}, 1, 1) IN ['e', 'W', 'I'] AND size({value}) % 4 = 0 "
        f"AND regexp_matches({value}, $b64)"
    )
    return [
        Filter(
            f", lower({value}) AS low",
            f"low IS NOT NULL AND ({tests})",
            {f"n{i}": needle for i, needle in enumerate(needles)},
        ),
        Filter("", shape, {"b64": BASE64_JSON_REGEX}),
    ]


@dataclass(frozen=True)
class Filter:
    """One candidate query's extra WITH column, WHERE test and parameters."""

    computed: str
    test: str
    params: dict[str, Any]


def _graph_candidates(
    graph: GraphStore,
    match: str,
    bound: str,
    value: str,
    scope: str,
    returns: str,
    params: dict[str, Any],
    needles: tuple[str, ...] | None,
) -> list[tuple[Any, ...]]:
    """The candidate rows of one column (``match`` binds the variables named in
    ``bound``); a row that two filters return comes once."""
    found: list[tuple[Any, ...]] = []
    for number, where in enumerate(_cypher_filters(value, needles)):
        # A WITH only where a value is computed: after one, the engine runs the
        # WHERE on every row instead of pushing its cheap tests into the scan.
        computed = f" WITH {bound}{where.computed}" if where.computed else ""
        rows = graph.rows(
            f"{match}{computed} WHERE {scope}{where.test} RETURN {returns}",
            {**params, **where.params},
        )
        seen = set(found) if number else set()
        found.extend(tuple(row) for row in rows if tuple(row) not in seen)
    return found


def _text_columns(columns: list[tuple[str, str]]) -> list[str]:
    return [name for name, kind in columns if kind.upper() == "STRING"]


def scan_graph(graph: GraphStore, collector: Collector) -> None:
    needles = candidate_needles()
    agent = collector.agent
    keys: dict[str, tuple[str, str | None]] = {}
    for table in graph.node_tables():
        columns = graph.columns(table)
        key = graph.primary_key(table) or columns[0][0]
        owner = agent_column(name for name, _ in columns)
        keys[table] = (key, owner)
        if agent is not None and owner is None:
            continue
        scope = f"n.{identifier(owner)} = $agent AND " if agent is not None and owner else ""
        owner_value = f"n.{identifier(owner)}" if owner else "''"
        for column in _text_columns(columns):
            rows = _graph_candidates(
                graph, f"MATCH (n:{identifier(table)})", "n", f"n.{identifier(column)}", scope,
                f"n.{identifier(key)} AS k, {owner_value} AS a, n.{identifier(column)} AS v",
                {"agent": agent} if scope else {}, needles,
            )  # fmt: skip
            where = FindingLocation(graph.path, graph.engine, table, column, ())
            collector.add(where, ((((key, r[0]),), str(r[0]), r[1], r[2]) for r in rows))
    for name, rel in graph.rel_tables().items():
        columns = _text_columns(graph.columns(name))
        for source, target in rel.pairs:
            _scan_kuzu_rel(graph, collector, name, (source, target), columns, keys, needles)


def _scan_kuzu_rel(
    graph: GraphStore,
    collector: Collector,
    rel: str,
    ends: tuple[str, str],
    columns: list[str],
    keys: dict[str, tuple[str, str | None]],
    needles: tuple[str, ...] | None,
) -> None:
    """A rel row is named ``from-key->to-key``; its agent is its source node's."""
    (source_key, owner), (target_key, _) = keys[ends[0]], keys[ends[1]]
    if collector.agent is not None and owner is None:
        return
    scope = f"a.{identifier(owner)} = $agent AND " if collector.agent is not None and owner else ""
    owner_value = f"a.{identifier(owner)}" if owner else "''"
    for column in columns:
        rows = _graph_candidates(
            graph,
            f"MATCH (a:{identifier(ends[0])})-[r:{identifier(rel)}]->(b:{identifier(ends[1])})",
            "a, r, b", f"r.{identifier(column)}", scope,
            f"a.{identifier(source_key)} AS k1, b.{identifier(target_key)} AS k2, "
            f"{owner_value} AS o, r.{identifier(column)} AS v",
            {"agent": collector.agent} if scope else {}, needles,
        )  # fmt: skip
        where = FindingLocation(graph.path, graph.engine, rel, column, (), ends)
        collector.add(
            where,
            (
                (((source_key, r[0]), (target_key, r[1])), f"{r[0]}->{r[1]}", r[2], r[3])
                for r in rows
            ),
        )
