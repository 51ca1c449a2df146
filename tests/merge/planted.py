"""Stores with planted duplicates, built statement by statement, and whole-store dumps.

The graph store has the Python library's own schema (amplihack-memory-lib
4ae0813, ``HierarchicalMemory._init_schema``: no TRANSITIONED_TO table), so a
merge in it follows the library's supersession. Every fact is chosen so the
similarity of each pair can be worked out by hand (see PAIRS).
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from memexplorer.operator.graph_rows import dump_graph
from memexplorer.operator.sqlite_rows import dump_sqlite
from memexplorer.storage.graph_open import open_graph_store
from memexplorer.storage.stores import sniff

AGENT = "ops"

#: The library's DDL (hierarchical_memory.py, _init_schema), statement for statement.
LIBRARY_SCHEMA = (
    "CREATE NODE TABLE IF NOT EXISTS SemanticMemory(memory_id STRING, concept STRING, "
    "content STRING, confidence DOUBLE, source_id STRING, agent_id STRING, tags STRING, "
    "metadata STRING, created_at STRING, entity_name STRING DEFAULT '', PRIMARY KEY (memory_id))",
    "CREATE NODE TABLE IF NOT EXISTS EpisodicMemory(memory_id STRING, content STRING, "
    "source_label STRING, agent_id STRING, tags STRING, metadata STRING, created_at STRING, "
    "PRIMARY KEY (memory_id))",
    "CREATE REL TABLE IF NOT EXISTS SIMILAR_TO(FROM SemanticMemory TO SemanticMemory, "
    "weight DOUBLE, metadata STRING)",
    "CREATE REL TABLE IF NOT EXISTS DERIVES_FROM(FROM SemanticMemory TO EpisodicMemory, "
    "extraction_method STRING, confidence DOUBLE)",
    "CREATE REL TABLE IF NOT EXISTS SUPERSEDES(FROM SemanticMemory TO SemanticMemory, "
    "reason STRING, temporal_delta STRING)",
)
#: memexplorer's seed-003 schema adds this table (hierarchical_schema.py).
TRANSITIONED_TO = (
    "CREATE REL TABLE IF NOT EXISTS TRANSITIONED_TO(FROM SemanticMemory TO SemanticMemory, "
    "from_value STRING, to_value STRING, turn INT64, transition_type STRING)"
)

REGION = "The production deploy region is eu-west-1"
TODAY = "production deploy region is eu-west-1 today"
# Words kept by the tokenizer (longer than two letters, stop words dropped):
#   REGION        -> {production, deploy, region, eu-west-1}            (4)
#   a3's content  -> {production, deploy, region, eu-west-1, today}     (5)
#   "deploy region" -> {deploy, region}; "database" -> {database}
FACTS: list[dict[str, Any]] = [
    {"id": "a1", "concept": "deploy region", "content": REGION, "tags": ["deploy"],
     "confidence": 0.8, "created_at": "2026-03-01T10:00:00", "metadata": {"category": "semantic"}},
    {"id": "a2", "concept": "deploy region", "content": REGION, "tags": ["deploy"],
     "confidence": 0.6, "created_at": "2026-03-02T10:00:00", "metadata": {"category": "semantic"}},
    {"id": "a3", "concept": "deploy region", "content": TODAY,
     "tags": ["deploy"], "confidence": 0.9, "created_at": "2026-03-03T10:00:00",
     "metadata": {"category": "semantic"}},
    {"id": "b1", "concept": "database", "content": "Primary database runs PostgreSQL 15",
     "tags": [], "confidence": 0.7, "created_at": "2026-03-04T10:00:00", "metadata": {}},
    {"id": "b2", "concept": "Database", "content": "Primary database runs PostgreSQL 15",
     "tags": [], "confidence": 0.7, "created_at": "2026-03-05T10:00:00", "metadata": {}},
    {"id": "c1", "concept": "cache", "content": REGION, "tags": ["deploy"], "confidence": 0.5,
     "created_at": "2026-03-06T10:00:00", "metadata": {}},
    {"id": "d1", "concept": "deploy region", "content": "Rollbacks need approval from the lead",
     "tags": [], "confidence": 0.5, "created_at": "2026-02-01T10:00:00", "metadata": {}},
]  # fmt: skip
#: Each pair's score by hand: 0.5 x content Jaccard + 0.2 x tags Jaccard + 0.3 x concept.
PAIRS = {
    ("a1", "a2"): 0.5 * 1 + 0.2 * 1 + 0.3 * 1,  # same words, same tag: 1.0
    ("a1", "a3"): 0.5 * 4 / 5 + 0.2 * 1 + 0.3 * 1,  # 4 of 5 words: 0.9
    ("a2", "a3"): 0.5 * 4 / 5 + 0.2 * 1 + 0.3 * 1,
    ("b1", "b2"): 0.5 * 1 + 0.2 * 0 + 0.3 * 1,  # no tags on either: 0.8, exactly
    ("a1", "d1"): 0.5 * 0 + 0.2 * 0 + 0.3 * 1,  # 0.3
}
#: An episode and edges the merge must leave alone.
EPISODE = {"id": "e1", "content": "Deploy ticket 42", "created_at": "2026-03-01T09:00:00"}


def build_graph_store(path: Path, *, engine: str = "kuzu", seed_003: bool = False) -> Path:
    """The planted facts in a new graph store (the library's schema, or with
    ``seed_003`` memexplorer's, which adds TRANSITIONED_TO)."""
    with open_graph_store(path, read_only=False, create=engine) as graph:  # type: ignore[arg-type]
        for statement in LIBRARY_SCHEMA + ((TRANSITIONED_TO,) if seed_003 else ()):
            graph.execute(statement)
        graph.execute(
            "CREATE (:EpisodicMemory {memory_id: $id, content: $content, source_label: 'ticket', "
            "agent_id: $agent, tags: '[]', metadata: '{}', created_at: $created_at})",
            {**EPISODE, "agent": AGENT},
        )
        for fact in FACTS:
            graph.execute(
                "CREATE (:SemanticMemory {memory_id: $id, concept: $concept, content: $content, "
                "confidence: $confidence, source_id: '', agent_id: $agent, tags: $tags, "
                "metadata: $metadata, created_at: $created_at, entity_name: ''})",
                {**fact, "agent": AGENT, "tags": json.dumps(fact["tags"]),
                 "metadata": json.dumps(fact["metadata"])},
            )  # fmt: skip
        graph.execute(
            "MATCH (a:SemanticMemory {memory_id: 'a1'}), (e:EpisodicMemory {memory_id: 'e1'}) "
            "CREATE (a)-[:DERIVES_FROM {extraction_method: 'llm_extraction', confidence: 1.0}]->(e)"
        )
        graph.execute(
            "MATCH (a:SemanticMemory {memory_id: 'a2'}), (b:SemanticMemory {memory_id: 'a1'}) "
            "CREATE (a)-[:SIMILAR_TO {weight: 1.0, metadata: ''}]->(b)"
        )
    return path


def dump(path: Path) -> dict[str, Any]:
    """Every row of every table (edges with their endpoints), comparable as a whole;
    a SQLite store's AUTOINCREMENT counters included."""
    if sniff(path).engine == "sqlite":
        db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
        try:
            tables = dump_sqlite(db)
            sequence = sorted(db.execute("SELECT name, seq FROM sqlite_sequence").fetchall())
        finally:
            db.close()
        extra: dict[str, Any] = {"sqlite_sequence": sequence}
    else:
        with open_graph_store(path, read_only=True) as graph:
            tables = dump_graph(graph)
        extra = {}
    rows = {t.name: sorted(json.dumps(row, sort_keys=True) for row in t.rows) for t in tables}
    return {**rows, **extra}
