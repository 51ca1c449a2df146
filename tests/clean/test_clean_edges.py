"""Cleaning part of a graph: the edges that come in from facts left in place.

The expected edges come from the reference library's own export of the agent
(exports/ops-agent.export_to_json.json in the fixture tarball), never from
memexplorer: every edge with an end among the selected facts, counted per rel
table, including those whose other end is NOT selected.
"""

from __future__ import annotations

import json

import kuzu
import pytest

from memexplorer.operator.backup_records import read_backup
from memexplorer.operator.backups import restore_backup
from memexplorer.operator.clean import clean_store, clean_target, preview_clean
from memexplorer.operator.clean_selection import Selection

from .dump import dump_store

HIER = "home/.amplihack/hierarchical_memory/ops-agent/kuzu_db"
EXPORT = "exports/ops-agent.export_to_json.json"
RELS = {"similar_to_edges": "SIMILAR_TO", "supersedes_edges": "SUPERSEDES",
        "derives_from_edges": "DERIVES_FROM"}  # fmt: skip
#: Its three facts have six SIMILAR_TO edges coming in from "cluster regions" and
#: "cluster sizing" facts, which the selection leaves in place.
CONCEPT = "cluster versions"


@pytest.fixture
def oracle(reference_stores):
    """(selected memory_ids, edges touching them per rel, edges coming in from outside)."""
    export = json.loads((reference_stores / EXPORT).read_text())
    chosen = {n["memory_id"] for n in export["semantic_nodes"] if n["concept"] == CONCEPT}
    touching: dict[str, set[tuple[str, str]]] = {}
    incoming = 0
    for key, rel in RELS.items():
        pairs = {(e["source_id"], e["target_id"]) for e in export[key]}
        touching[rel] = {(a, b) for a, b in pairs if a in chosen or b in chosen}
        incoming += sum(a not in chosen and b in chosen for a, b in pairs)
    assert len(chosen) == 3 and incoming >= 6  # the case this file is about
    return chosen, {rel: pairs for rel, pairs in touching.items() if pairs}


def _pairs(path, rel: str) -> set[tuple[str, str]]:
    """The store's edges of one rel table, read with kuzu directly."""
    database = kuzu.Database(str(path), read_only=True)
    try:
        result = kuzu.Connection(database).execute(
            f"MATCH (a)-[:{rel}]->(b) RETURN a.memory_id, b.memory_id"
        )
        pairs = set()
        while result.has_next():
            pairs.add(tuple(result.get_next()))
        return pairs
    finally:
        database.close()


def test_preview_counts_edges_coming_in_from_unselected_facts(reference_stores, oracle):
    chosen, touching = oracle
    preview = preview_clean(clean_target(reference_stores / HIER), Selection(CONCEPT))
    assert preview.counts == {"SemanticMemory": len(chosen)}
    assert preview.edges == {rel: len(pairs) for rel, pairs in touching.items()}


def test_clean_backs_up_and_restores_edges_coming_in(reference_stores, tmp_path, oracle):
    _, touching = oracle
    path = reference_stores / HIER
    before = dump_store(path)
    everything = {rel: _pairs(path, rel) for rel in RELS.values()}
    result = clean_store(clean_target(path), Selection(CONCEPT), home=tmp_path / "home")
    for rel, pairs in everything.items():
        assert _pairs(path, rel) == pairs - touching.get(rel, set()), rel
    _, tables = read_backup(result.backup.path)
    saved = {t.name: {(r["_from"], r["_to"]) for r in t.rows} for t in tables if t.kind == "rel"}
    assert saved == touching
    restore_backup(result.backup.path)
    assert dump_store(path) == before


def test_preview_counts_edges_into_a_table_chosen_alone(reference_stores):
    # Every DERIVES_FROM edge runs from a SemanticMemory fact (not selected) to an
    # EpisodicMemory episode (selected): only the edges' target table is chosen.
    export = json.loads((reference_stores / EXPORT).read_text())
    selection = Selection("*", table="EpisodicMemory")
    preview = preview_clean(clean_target(reference_stores / HIER), selection)
    assert preview.counts == {"EpisodicMemory": len(export["episodic_nodes"])}
    assert preview.edges == {"DERIVES_FROM": len(export["derives_from_edges"])}
