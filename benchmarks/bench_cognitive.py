"""Measure CognitiveMemory.search_facts at scale.

Usage: python benchmarks/bench_cognitive.py [N ...]   (default: 10000)

A store of N synthetic facts for the benchmarked agent (plus N/10 facts of a
second agent sharing the file, two SIMILAR_TO edges per fact) is bulk-loaded
with ``COPY … FROM (UNWIND …)``; then 200 two-word ``search_facts`` queries
are timed (median and p95 of the last 180), against one raw kuzu keyword query
of the spec's pattern on the same store, and 50 ``store_fact`` calls.
"""

from __future__ import annotations

import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

from memexplorer.memory.cognitive_memory import CognitiveMemory

WORDS = [
    "checkout", "payments", "ledger", "cache", "queue", "broker", "replica", "shard",
    "index", "backup", "latency", "throughput", "alert", "runbook", "deploy", "rollback",
    "canary", "region", "zone", "cluster", "node", "pod", "service", "gateway", "token",
    "quota", "budget", "invoice", "refund", "customer", "ticket", "escalation",
]  # fmt: skip
AGENT = "bench-agent"
OTHER = "other-agent"
FACT_COLUMNS = ("node_id", "agent_id", "concept", "content", "confidence", "source_id", "tags",
                "metadata", "created_at")  # fmt: skip


def _sentence(rng: random.Random, number: int) -> str:
    words = rng.sample(WORDS, 6)
    return f"The {words[0]} {words[1]} uses {number} {words[2]} for {words[3]} {words[4]}"


def _facts(rng: random.Random, agent: str, n: int, prefix: str) -> list[dict]:
    return [
        {"node_id": f"sem_{prefix}{i:07d}", "agent_id": agent,
         "concept": " ".join(rng.sample(WORDS, 2)), "content": _sentence(rng, i),
         "confidence": round(rng.uniform(0.3, 1.0), 2), "source_id": "", "tags": "[]",
         "metadata": "{}", "created_at": 1_790_000_000 + i}
        for i in range(n)
    ]  # fmt: skip


def build(memory: CognitiveMemory, n: int, seed: int = 7) -> float:
    """Bulk-load the store; return the seconds it took."""
    rng = random.Random(seed)
    facts = _facts(rng, AGENT, n, "a") + _facts(rng, OTHER, max(n // 10, 1), "b")
    edges = []
    for i in range(n):
        for j in (i - 1, i - 7):
            if j >= 0:
                edges.append({"from": f"sem_a{i:07d}", "to": f"sem_a{j:07d}",
                              "score": round(rng.uniform(0.6, 1.0), 3)})  # fmt: skip
    returned = ", ".join(f"r.{name}" for name in FACT_COLUMNS)
    start = time.perf_counter()
    memory.store_fact("warm", "creates the schema")
    graph = memory.graph
    with graph.transaction():
        graph.execute(
            f"COPY SemanticMemory FROM (UNWIND $rows AS r RETURN {returned})", {"rows": facts}
        )
        graph.execute(
            "COPY SIMILAR_TO FROM (UNWIND $rows AS r RETURN r.from, r.to, r.score)",
            {"rows": edges},
        )
    return time.perf_counter() - start


def _ms(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    return {
        "median_ms": statistics.median(ordered) * 1000,
        "p95_ms": ordered[int(len(ordered) * 0.95) - 1] * 1000,
    }


def bench(n: int, workdir: Path) -> dict[str, float]:
    results: dict[str, float] = {"facts": n}
    with CognitiveMemory(AGENT, workdir / f"cognitive-{n}", mode="write") as memory:
        results["load_s"] = build(memory, n)
        rng = random.Random(1)
        queries = [" ".join(rng.sample(WORDS, 2)) for _ in range(200)]
        search, raw = [], []
        for query in queries:
            start = time.perf_counter()
            found = memory.search_facts(query)
            search.append(time.perf_counter() - start)
            assert found and len(found) <= 10
            start = time.perf_counter()
            memory.graph.rows(
                """MATCH (s:SemanticMemory)
                   WHERE s.agent_id = $agent
                     AND (lower(s.concept) CONTAINS lower($query)
                          OR lower(s.content) CONTAINS lower($query))
                   RETURN s.node_id, s.concept, s.content, s.confidence, s.source_id,
                          s.tags, s.metadata, s.created_at
                   ORDER BY s.confidence DESC LIMIT $limit""",
                {"agent": AGENT, "query": query.split()[0], "limit": 10},
            )
            raw.append(time.perf_counter() - start)
        for name, value in _ms(search[20:]).items():
            results[f"search_{name}"] = value
        results["raw_keyword_median_ms"] = _ms(raw[20:])["median_ms"]
        stores = []
        for i in range(50):
            start = time.perf_counter()
            memory.store_fact(" ".join(rng.sample(WORDS, 2)), _sentence(rng, n + i))
            stores.append(time.perf_counter() - start)
        results["store_fact_median_ms"] = _ms(stores)["median_ms"]
    return results


def main(argv: list[str]) -> None:
    sizes = [int(a) for a in argv] or [10_000]
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            print(json.dumps(bench(n, Path(tmp)), default=lambda v: round(v, 3)), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
