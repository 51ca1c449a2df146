"""Measure the chain list: every temporal chain of an agent, as the Chain view loads it.

Usage: python benchmarks/bench_chains.py [CHAINS ...]   (default: 1000)

A store is built by importing a generated export (format 1.1): CHAINS chains of
2 to 6 values about distinct concepts, linked as the reference library links
them (every newer fact SUPERSEDES every older one), half of them also with
memexplorer's TRANSITIONED_TO edges between neighbours, and as many unrelated
facts again. ``agent_chains`` is then timed on the store opened read-only, as
the app opens it: the first (cold) call and the median of the next ones.
Target: under 500 ms for 1,000 chains.
"""

from __future__ import annotations

import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from memexplorer.memory.hierarchical_memory import HierarchicalMemory
from memexplorer.operator.chains import agent_chains
from memexplorer.storage.graphdb import open_kuzu

AGENT = "bench-agent"
REPEATS = 7


def _fact(memory_id: str, concept: str, content: str, turn: int, second: int) -> dict[str, Any]:
    minutes, seconds = divmod(second, 60)
    hours, minutes = divmod(minutes, 60)
    return {
        "memory_id": memory_id,
        "concept": concept,
        "content": content,
        "confidence": 0.9,
        "metadata": {"temporal_index": turn} if turn else {},
        "created_at": f"2026-03-01T{hours % 24:02d}:{minutes:02d}:{seconds:02d}",
        "entity_name": concept.split()[0],
    }


def generated_export(chains: int, seed: int = 7) -> dict[str, Any]:
    """CHAINS chains with complete SUPERSEDES DAGs, plus as many facts in no chain."""
    rng = random.Random(seed)
    nodes: list[dict[str, Any]] = []
    supersedes: list[dict[str, Any]] = []
    transitions: list[dict[str, Any]] = []
    clock = 0
    for chain in range(chains):
        concept = f"service-{chain} replicas"
        values = rng.sample(range(1, 500), rng.randint(2, 6))
        ids = [f"c{chain}-v{turn}" for turn in range(1, len(values) + 1)]
        for turn, (memory_id, value) in enumerate(zip(ids, values, strict=True), start=1):
            clock += 1
            nodes.append(_fact(memory_id, concept, f"service-{chain} runs {value} replicas",
                               turn, clock))  # fmt: skip
            for older in range(turn - 1):
                supersedes.append({
                    "source_id": memory_id, "target_id": ids[older],
                    "reason": f"Updated values: {value} vs {values[older]}",
                    "temporal_delta": f"index {older + 1} -> {turn}",
                })  # fmt: skip
            if turn > 1 and chain % 2:
                transitions.append({
                    "source_id": memory_id, "target_id": ids[turn - 2], "from_value": str(value),
                    "to_value": str(values[turn - 2]), "turn": turn, "transition_type": "update",
                })  # fmt: skip
    for fact in range(chains):
        clock += 1
        nodes.append(_fact(f"plain-{fact}", f"runbook {fact}", f"Runbook {fact} is in the wiki",
                           0, clock))  # fmt: skip
    return {
        "format_version": "1.1",
        "agent_name": AGENT,
        "semantic_nodes": nodes,
        "supersedes_edges": supersedes,
        "transitioned_to_edges": transitions,
    }


def bench(chains: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "kuzu_db"
        data = generated_export(chains)
        started = time.perf_counter()
        with HierarchicalMemory(AGENT, path) as memory:
            memory.import_from_json(data)
        built = time.perf_counter() - started
        edges = len(data["supersedes_edges"]) + len(data["transitioned_to_edges"])
        print(f"{chains:,} chains: {len(data['semantic_nodes']):,} facts, {edges:,} chain edges, "
              f"built in {built:.1f} s")  # fmt: skip
        with open_kuzu(path) as graph:
            started = time.perf_counter()
            found = agent_chains(graph, AGENT)
            cold = time.perf_counter() - started
            times = []
            for _ in range(REPEATS):
                started = time.perf_counter()
                agent_chains(graph, AGENT)
                times.append(time.perf_counter() - started)
        assert len(found) == chains, f"expected {chains} chains, found {len(found)}"
        assert len(found[0].steps) == 6 and not any(c.flags for c in found)
        median = statistics.median(times)
        verdict = "under" if median < 0.5 else "OVER"
        print(f"  agent_chains: first call {cold * 1000:.0f} ms, median of {REPEATS} "
              f"{median * 1000:.0f} ms ({verdict} the 500 ms target)")  # fmt: skip


def main(argv: list[str]) -> None:
    for chains in [int(arg) for arg in argv] or [1000]:
        bench(chains)


if __name__ == "__main__":
    main(sys.argv[1:])
