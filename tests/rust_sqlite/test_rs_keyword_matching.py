"""The amplihack-rs profile's keyword step on a SQLite store: for every word, the
facts whose content or concept holds it once lower-cased as Python (and Rust's
to_lowercase) do, most confident first, ties in row order. Expected answers are
computed here by brute force over the rows, not by the engine's SQL."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from memexplorer.memory.export_validation import validate_export
from memexplorer.operator.retrieval_rs_sqlite import RsSqliteRetriever
from memexplorer.operator.rs_sqlite_write import insert_agent, open_rs_writable

AGENT = "matcher"
#: (content, concept, confidence): mixed case, LIKE's wildcards, characters Python
#: lower-cases to ASCII (the Kelvin sign, dotted capital I), other non-ASCII text.
FACTS = [
    ("Kafka broker lag", "Queue", 0.9),
    ("\u212aafka consumer stalled", "queue", 0.9),  # Kelvin sign: lower() gives "kafka"
    ("STRASSE and Straße differ", "naming", 0.5),
    ("100% of the cache_hits counted", "Metrics", 0.7),
    ("1000 of the cachexhits", "metrics", 0.7),
    ("\u0130stanbul region failover", "region", 0.8),  # "İ" lowers to "i̇"
    ("istanbul REGION latency", "Region", 0.8),
    ("plain text", "KAFKA", 0.4),
    ("Ünïcödé ÉTAT", "état", 0.6),
]
WORDS = [
    ["kafka"],
    ["queue"],
    ["cache_hits"],
    ["100%"],
    ["istanbul"],
    ["i\u0307stanbul"],
    ["état"],
    ["straße"],
    ["kafka", "region"],
    ["cache", "of", "the", "kafka"],
    ["zzz"],
]


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("rs") / f"{AGENT}.db"
    facts = [
        {"memory_id": f"f{i}", "concept": concept, "content": content,
         "confidence": confidence, "source_id": "", "tags": [], "metadata": {},
         "created_at": "2026-01-01T00:00:00"}
        for i, (content, concept, confidence) in enumerate(FACTS)
    ]  # fmt: skip
    export = {"agent_name": AGENT, "exported_at": "2026-01-01T00:00:00", "format_version": "1.1",
              "semantic_nodes": facts, "episodic_nodes": [], "similar_to_edges": [],
              "derives_from_edges": [], "supersedes_edges": [], "transitioned_to_edges": [],
              "statistics": {}}  # fmt: skip
    connection = open_rs_writable(path)
    try:
        insert_agent(connection, AGENT, validate_export(export), merge=False)
    finally:
        connection.close()
    return path


def _expected(store: Path, word: str, limit: int) -> list[str]:
    connection = sqlite3.connect(store)
    try:
        rows = connection.execute(
            "SELECT rowid, memory_id, content, concept, confidence FROM semantic_memories"
        ).fetchall()
    finally:
        connection.close()
    hits = [r for r in rows if word in (r[2] or "").lower() or word in (r[3] or "").lower()]
    return [r[1] for r in sorted(hits, key=lambda r: (-r[4], r[0]))[:limit]]


@pytest.mark.parametrize("words", WORDS, ids=" ".join)
@pytest.mark.parametrize("limit", [1, 3, 20])
def test_each_words_facts_are_those_python_lower_casing_finds(store, words, limit):
    connection = sqlite3.connect(f"file:{store}?mode=ro", uri=True)
    try:
        retriever = RsSqliteRetriever(connection, AGENT)
        retriever._tops = retriever._all_tops(words, limit)
        found = {
            word: [node.node_id for node in retriever.keyword_search(word, limit)] for word in words
        }
    finally:
        connection.close()
    assert found == {word: _expected(store, word, limit) for word in words}


def test_the_kelvin_sign_and_wildcards_are_matched_as_python_does(store):
    """Spelled out for the cases the SQL could get wrong."""
    assert _expected(store, "kafka", 20) == ["f0", "f1", "f7"]
    assert _expected(store, "cache_hits", 20) == ["f3"]
    assert _expected(store, "100%", 20) == ["f3"]
    assert _expected(store, "istanbul", 20) == ["f6"]
