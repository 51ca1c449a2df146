"""Measure paging amplihack-rs's SQLite hierarchical store (``<agent>.db``) at scale.

Usage: python benchmarks/bench_rs_sqlite.py [N ...]   (default: 100000)

Builds a store of N facts (N/10 episodes, DERIVES_FROM for every fact, two
SIMILAR_TO edges per fact, a SUPERSEDES and TRANSITIONED_TO edge every 50
facts) with the Rust import's statements (``rs_sqlite_write.insert_agent``),
then times what the app does to show a table: opening the browser read-only,
listing the agent's tables with their counts, and the first and last page of
100 rows of ``semantic_memories`` and of ``similar_to_edges`` (whose agent is
found through the source fact), unsorted, sorted by an indexed column
(``created_at``), sorted by an unindexed one (``confidence``), and filtered by
text; then the query box's amplihack-rs profile (the agent's own retrieval) for
three queries. Each figure is the median of 5 runs, in milliseconds, one JSON
line per N.
"""

from __future__ import annotations

import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from memexplorer.memory.export_validation import validate_export
from memexplorer.operator.browse import PageQuery, open_browser
from memexplorer.operator.retrieval_rs_sqlite import rs_sqlite_retrieve
from memexplorer.operator.rs_sqlite_write import insert_agent, open_rs_writable

AGENT = "bench-agent"
PAGE = 100
#: Query box texts: two broad words, a word and a number, one broad word.
QUERIES = ("replica cache", "shard 4242", "ledger")
WORDS = [
    "checkout", "payments", "ledger", "cache", "queue", "broker", "replica", "shard",
    "index", "backup", "latency", "deploy", "rollback", "canary", "region", "cluster",
]  # fmt: skip


def _export(n: int, seed: int = 7) -> dict[str, Any]:
    rng = random.Random(seed)
    episodes = [
        {"memory_id": f"e{i}", "content": f"episode {i} about {rng.choice(WORDS)}",
         "source_label": "session", "tags": ["bench"], "metadata": {"turn": i},
         "created_at": f"2026-01-01T00:{i % 60:02d}:00"}
        for i in range(n // 10)
    ]  # fmt: skip
    facts, similar, derives, supersedes, transitions = [], [], [], [], []
    for i in range(n):
        words = rng.sample(WORDS, 3)
        facts.append({"memory_id": f"f{i}", "concept": words[0], "entity_name": words[1],
                      "content": f"The {words[0]} of {words[1]} is {i}", "confidence": rng.random(),
                      "source_id": f"e{i // 10}", "tags": words, "metadata": {"i": i},
                      "created_at": f"2026-02-{1 + i % 28:02d}T{i % 24:02d}:00:00"})  # fmt: skip
        derives.append({"source_id": f"f{i}", "target_id": f"e{i // 10}",
                        "extraction_method": "llm", "confidence": 0.9})  # fmt: skip
        for _ in range(2):
            similar.append({"source_id": f"f{i}", "target_id": f"f{rng.randrange(n)}",
                            "weight": rng.random(), "metadata": {}})  # fmt: skip
        if i and i % 50 == 0:
            supersedes.append({"source_id": f"f{i}", "target_id": f"f{i - 50}",
                               "reason": "update", "temporal_delta": "50 facts"})  # fmt: skip
            transitions.append({"source_id": f"f{i}", "target_id": f"f{i - 50}",
                                "from_value": str(i), "to_value": str(i - 50), "turn": i,
                                "transition_type": "update"})  # fmt: skip
    return {"format_version": "1.1", "semantic_nodes": facts, "episodic_nodes": episodes,
            "similar_to_edges": similar, "derives_from_edges": derives,
            "supersedes_edges": supersedes, "transitioned_to_edges": transitions}  # fmt: skip


def _median_ms(action, runs: int = 5) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        action()
        times.append((time.perf_counter() - start) * 1000)
    return round(statistics.median(times), 1)


def measure(n: int, folder: Path) -> dict[str, Any]:
    store = folder / f"{AGENT}.db"
    started = time.perf_counter()
    connection = open_rs_writable(store)
    try:
        insert_agent(connection, AGENT, validate_export(_export(n)), merge=False)
    finally:
        connection.close()
    figures: dict[str, Any] = {"facts": n, "build_s": round(time.perf_counter() - started, 1)}
    figures["open_ms"] = _median_ms(lambda: open_browser(store).close())
    browser = open_browser(store)
    try:
        figures["tables_ms"] = _median_ms(lambda: browser.tables(AGENT))
        tables = {t.name: t for t in browser.tables(AGENT)}
        for name in ("semantic_memories", "similar_to_edges"):
            table = tables[name]
            last = (table.count - 1) // PAGE * PAGE
            for label, sort, text in (("", None, ""), ("created_at", "created_at", ""),
                                      ("confidence", "confidence", ""),
                                      ("filter", None, "replica")):  # fmt: skip
                if sort and sort not in table.column_names:
                    continue
                total = browser.page(table, AGENT, PageQuery(0, PAGE, sort, False, text)).total
                end = (max(total, 1) - 1) // PAGE * PAGE if text else last
                for where, offset in (("first", 0), ("last", end)):
                    query = PageQuery(offset, PAGE, sort, False, text)
                    key = f"{name}:{label or 'unsorted'}:{where}_ms"
                    figures[key] = _median_ms(lambda q=query, t=table: browser.page(t, AGENT, q))
    finally:
        browser.close()
    for query in QUERIES:
        figures[f"query:{query}_ms"] = _median_ms(
            lambda q=query: rs_sqlite_retrieve(store, AGENT, q)
        )
    return figures


def main(sizes: list[int]) -> None:
    for n in sizes:
        with tempfile.TemporaryDirectory() as folder:
            print(json.dumps(measure(n, Path(folder))), flush=True)


if __name__ == "__main__":
    main([int(arg) for arg in sys.argv[1:]] or [100_000])
