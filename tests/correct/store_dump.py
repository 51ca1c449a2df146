"""Every fact and edge of a hierarchical store, read plainly, to see what a write added.

Independent of the correction code: plain queries over the store's own tables,
in the shape tests/fixtures/make_correction_oracle.py records.
"""

from __future__ import annotations

import json
import sqlite3
from collections import Counter
from pathlib import Path
from typing import Any

from memexplorer.storage.graph_open import open_graph_store

FACT_COLUMNS = ("memory_id", "concept", "content", "confidence", "source_id", "agent_id",
                "tags", "metadata", "created_at", "entity_name")  # fmt: skip
RELS = ("SIMILAR_TO", "SUPERSEDES", "DERIVES_FROM", "TRANSITIONED_TO")
Dump = tuple[dict[str, dict[str, Any]], list[str]]


def _key(rel: str, source: str, target: str, props: dict[str, Any]) -> str:
    return json.dumps([rel, source, target, props], sort_keys=True)


def dump_store(path: Path) -> Dump:
    if path.suffix == ".db":
        return _dump_sqlite(path)
    with open_graph_store(path) as graph:
        cols = ", ".join(f"m.{c}" for c in FACT_COLUMNS)
        nodes = {
            r[0]: dict(zip(FACT_COLUMNS, r, strict=True))
            for r in graph.rows(f"MATCH (m:SemanticMemory) RETURN {cols}")
        }
        tables = set(graph.rel_tables())
        edges = []
        for rel in RELS:
            if rel not in tables:
                continue
            names = [name for name, _ in graph.columns(rel)]
            props = "".join(f", r.{n}" for n in names)
            query = f"MATCH (a)-[r:{rel}]->(b) RETURN a.memory_id, b.memory_id{props}"
            for r in graph.rows(query):
                edges.append(_key(rel, r[0], r[1], dict(zip(names, r[2:], strict=True))))
    return nodes, edges


def _dump_sqlite(path: Path) -> Dump:
    conn = sqlite3.connect(path)
    try:
        cols = ", ".join(FACT_COLUMNS)
        nodes = {
            r[0]: dict(zip(FACT_COLUMNS, r, strict=True))
            for r in conn.execute(f"SELECT {cols} FROM semantic_memories")
        }
        edges = []
        for rel in RELS:
            table = f"{rel.lower()}_edges"
            names = [r[1] for r in conn.execute(f"PRAGMA table_info({table})")][3:]
            query = f"SELECT source_id, target_id, {', '.join(names)} FROM {table}"
            for r in conn.execute(query):
                edges.append(_key(rel, r[0], r[1], dict(zip(names, r[2:], strict=True))))
    finally:
        conn.close()
    return nodes, edges


def store_diff(before: Dump, after: Dump) -> dict[str, Any]:
    """The added fact (id and created_at named ``<new>``/``<created_at>``), the added
    edges, the changed properties of other facts; asserts nothing was removed."""
    nodes_before, edges_before = before
    nodes_after, edges_after = after
    added = [k for k in nodes_after if k not in nodes_before]
    assert len(added) == 1, added
    assert set(nodes_before) <= set(nodes_after)
    new_id = added[0]
    node = dict(nodes_after[new_id], memory_id="<new>", created_at="<created_at>")
    changes = [
        {"memory_id": k, "property": c, "before": nodes_before[k][c], "after": nodes_after[k][c]}
        for k in sorted(nodes_before)
        for c in FACT_COLUMNS
        if nodes_after[k][c] != nodes_before[k][c]
    ]
    assert not Counter(edges_before) - Counter(edges_after)
    edges = []
    for key in sorted((Counter(edges_after) - Counter(edges_before)).elements()):
        rel, source, target, props = json.loads(key)
        edges.append({"rel": rel, "source": "<new>" if source == new_id else source,
                      "target": "<new>" if target == new_id else target,
                      "properties": props})  # fmt: skip
    return {"node": node, "edges": edges, "changes": changes}
