"""Measure the credential audit on a home with N facts (target: 100k facts under 10 s).

Usage: python benchmarks/bench_audit.py [N ...]   (default: 100000)

The home is built by importing bench_hierarchical's synthetic export with a
few fake secrets planted in facts, episodes and metadata; the audit of the
whole home is then timed (three runs, median) and checked to find every plant.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

from bench_hierarchical import AGENT, make_export

from memexplorer.memory.hierarchical_memory import HierarchicalMemory
from memexplorer.operator.audit import audit_paths

#: Fake secrets planted in the synthetic store: (where, text).
PLANTS = [
    ("fact", "Deploy user key AKIAFAKE0BENCH1KEY2X was found in a log"),
    ("fact", "The staging db is postgres://svc:Bench-Pass-77@db.internal:5432/app"),
    ("episode", "Pasted ghp_FAKEbenchFAKEbenchFAKEbenchFAKEbench12 into chat"),
    ("metadata", "sk-FAKEbenchmark1234567890abc"),
]


def _plant(export: dict) -> set[tuple[str, str, str]]:
    """Put the plants into the export; return where each is: (table, id, column)."""
    step = len(export["semantic_nodes"]) // (len(PLANTS) + 1)
    places = set()
    for number, (where, text) in enumerate(PLANTS, 1):
        if where == "episode":
            node = export["episodic_nodes"][number]
            node["content"] = text
            places.add(("EpisodicMemory", node["memory_id"], "content"))
            continue
        node = export["semantic_nodes"][number * step]
        if where == "metadata":
            node["metadata"]["note"] = text
        else:
            node["content"] = text
        places.add(("SemanticMemory", node["memory_id"], "content" if where == "fact" else where))
    return places


def bench(n: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / ".amplihack"
        export = make_export(n)
        places = _plant(export)
        started = time.perf_counter()
        with HierarchicalMemory(AGENT, home / "hierarchical_memory" / AGENT) as memory:
            memory.import_from_json(export)
        print(f"N={n:,}: built the home in {time.perf_counter() - started:.1f} s")
        timings = []
        for _ in range(3):
            started = time.perf_counter()
            report = audit_paths([home])
            timings.append(time.perf_counter() - started)
        found = {(f.table, f.id, f.column) for f in report.findings}
        assert places <= found, f"planted secrets not found: {places - found}"
        rows = len({(f.table, f.id, f.column) for f in report.findings})
        print(
            f"  audit: median {statistics.median(timings):.2f} s "
            f"(runs {', '.join(f'{t:.2f}' for t in timings)}); "
            f"{len(report.findings):,} findings in {rows:,} values "
            f"(the reference 'token' pattern flags prose such as 'token quota'); "
            f"all {len(places)} plants found"
        )


def main(argv: list[str]) -> None:
    for n in [int(a) for a in argv] or [100_000]:
        bench(n)


if __name__ == "__main__":
    main(sys.argv[1:])
