"""Measure HierarchicalMemory at scale: import, export, store_knowledge, retrieval.

Usage: python benchmarks/bench_hierarchical.py [N ...]   (default: 10000 100000)

A store of N synthetic facts (with episodes, SIMILAR_TO, DERIVES_FROM and
temporal chains) is built by importing a generated export, which also times
import; then export, store_knowledge and retrieve_subgraph are timed against one
raw kuzu keyword query (the spec's query pattern) on the same store.
"""

from __future__ import annotations

import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

from memexplorer.memory.hierarchical_memory import HierarchicalMemory

WORDS = [
    "checkout",
    "payments",
    "ledger",
    "cache",
    "queue",
    "broker",
    "replica",
    "shard",
    "index",
    "backup",
    "latency",
    "throughput",
    "alert",
    "runbook",
    "deploy",
    "rollback",
    "canary",
    "region",
    "zone",
    "cluster",
    "node",
    "pod",
    "service",
    "gateway",
    "token",
    "quota",
    "budget",
    "invoice",
    "refund",
    "customer",
    "ticket",
    "escalation",
]
AGENT = "bench-agent"


def _sentence(rng: random.Random, number: int) -> str:
    words = rng.sample(WORDS, 6)
    return f"The {words[0]} {words[1]} uses {number} {words[2]} for {words[3]} {words[4]}"


def _clock(i: int) -> str:
    return f"{i // 3600 % 24:02d}:{i // 60 % 60:02d}:{i % 60:02d}.{i:06d}"


def make_export(n: int, seed: int = 7) -> dict:
    rng = random.Random(seed)
    episodes = [
        {"memory_id": f"ep-{i}", "content": f"Episode {i}: {_sentence(rng, i)}",
         "source_label": f"ticket:{i}", "tags": [], "metadata": {},
         "created_at": f"2026-01-01T00:{i // 60 % 60:02d}:{i % 60:02d}.{i:06d}"}
        for i in range(max(n // 10, 1))
    ]  # fmt: skip
    facts, derives, similar, supersedes = [], [], [], []
    for i in range(n):
        concept = " ".join(rng.sample(WORDS, 2))
        facts.append(
            {"memory_id": f"f-{i}", "concept": concept, "content": _sentence(rng, i),
             "confidence": round(rng.uniform(0.5, 1.0), 2), "source_id": f"ep-{i // 10}",
             "tags": rng.sample(WORDS, 2), "metadata": {"category": "semantic"},
             "created_at": f"2026-02-01T{_clock(i)}",
             "entity_name": ""}
        )  # fmt: skip
        derives.append({"source_id": f"f-{i}", "target_id": f"ep-{i // 10}",
                        "extraction_method": "llm_extraction", "confidence": 1.0})  # fmt: skip
        for j in (i - 1, i - 7):
            if j >= 0:
                weight = round(rng.uniform(0.31, 0.9), 3)
                similar.append(
                    {"source_id": f"f-{i}", "target_id": f"f-{j}", "weight": weight, "metadata": {}}
                )
        if i % 50 == 1:
            supersedes.append(
                {"source_id": f"f-{i}", "target_id": f"f-{i - 1}", "reason": "Updated values",
                 "temporal_delta": "index 1 -> 2"}
            )  # fmt: skip
    return {
        "agent_name": AGENT, "format_version": "1.0", "semantic_nodes": facts,
        "episodic_nodes": episodes, "similar_to_edges": similar, "derives_from_edges": derives,
        "supersedes_edges": supersedes,
    }  # fmt: skip


def _median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


def _time_retrieval(memory: HierarchicalMemory, queries: list[str]) -> tuple[float, float]:
    """Median ms of one raw kuzu keyword query (the spec's pattern, first word)
    and of retrieve_subgraph, alternating on the same store."""
    raw, rag = [], []
    for query in queries:
        start = time.perf_counter()
        memory.graph.rows(
            """MATCH (m:SemanticMemory)
               WHERE m.agent_id = $agent_id
                 AND (lower(m.concept) CONTAINS lower($query)
                      OR lower(m.content) CONTAINS lower($query))
               RETURN m.memory_id, m.concept, m.content, m.confidence, m.source_id,
                      m.tags, m.metadata, m.created_at, m.entity_name
               ORDER BY m.confidence DESC LIMIT $max_nodes""",
            {"agent_id": AGENT, "query": query.split()[0], "max_nodes": 20},
        )
        raw.append(time.perf_counter() - start)
        start = time.perf_counter()
        memory.retrieve_subgraph(query)
        rag.append(time.perf_counter() - start)
    return _median_ms(raw), _median_ms(rag)


def bench(n: int, workdir: Path) -> dict[str, float]:
    data = make_export(n)
    results: dict[str, float] = {"facts": n}
    with HierarchicalMemory(AGENT, workdir / f"store-{n}") as memory:
        start = time.perf_counter()
        memory.import_from_json(data)
        results["import_s"] = time.perf_counter() - start
        start = time.perf_counter()
        exported = memory.export_to_json()
        results["export_s"] = time.perf_counter() - start
        assert len(exported["semantic_nodes"]) == n
        rng = random.Random(1)
        samples = []
        for i in range(200):
            text = _sentence(rng, n + i)
            start = time.perf_counter()
            memory.store_knowledge(text, " ".join(rng.sample(WORDS, 2)), tags=["bench"])
            samples.append(time.perf_counter() - start)
        results["store_median_ms"] = _median_ms(samples[20:])
        # Broad queries (two common words) fill max_nodes with keyword hits;
        # narrow ones (a number in a few facts) also take the neighbour step.
        broad = [" ".join(rng.sample(WORDS, 2)) for _ in range(20)]
        narrow = [str(rng.randrange(1000, n)) for _ in range(20)]
        for label, queries in (("broad", broad), ("narrow", narrow)):
            raw, rag = _time_retrieval(memory, queries)
            results[f"{label}_raw_keyword_median_ms"] = raw
            results[f"{label}_retrieve_median_ms"] = rag
            results[f"{label}_retrieve_over_raw"] = rag / raw
    return results


def main(argv: list[str]) -> None:
    sizes = [int(a) for a in argv] or [10_000, 100_000]
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            print(json.dumps(bench(n, Path(tmp)), default=lambda v: round(v, 3)), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
