"""Measure finding duplicates (`memexplorer duplicates`, the app's d) on the cached
scale homes, and the grouping alone on one concept of 10k facts.

Usage: MEMEXPLORER_BENCH_CACHE=DIR python benchmarks/bench_duplicates.py [N ...]
(default 10000 100000)

For each N: a copy of the cached store (the cache is never written), then
find_duplicates at 0.85 and 0.5 (read the agent's facts, group them), the median
of three. Then the worst case for the grouping: 10,000 synthetic facts of ONE
concept, grouped with the tag-class bounds and prefix filtering, against the
pairs every-pair scoring would score (50 million, on word sets split once;
timed on the first 1,000 facts and scaled by pairs). "read_s" is the part of
find_duplicates that reads the store; "cpu_s" the process's CPU seconds for the
same runs (median).
"""

from __future__ import annotations

import json
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from bench_hierarchical import AGENT, WORDS
from scale_stores import scale_home, store_path

from memexplorer.memory.similarity import tag_set, tokenize, weighted_similarity
from memexplorer.operator.duplicates import find_duplicates
from memexplorer.operator.duplicates_grouping import DuplicateFact, group_duplicates
from memexplorer.operator.merge_store import read_facts


def _median(run, times: int = 3, cpu: list[float] | None = None) -> tuple[float, object]:
    """The median wall time of ``times`` runs (and, into ``cpu``, their median CPU time:
    on a loaded machine the two differ)."""
    samples, spent, result = [], [], None
    for _ in range(times):
        start, start_cpu = time.perf_counter(), time.process_time()
        result = run()
        samples.append(time.perf_counter() - start)
        spent.append(time.process_time() - start_cpu)
    if cpu is not None:
        cpu.append(statistics.median(spent))
    return statistics.median(samples), result


def scale(n: int) -> dict:
    with tempfile.TemporaryDirectory(prefix="bench-dup-") as temp:
        store = Path(temp) / "kuzu_db"
        shutil.copy2(store_path(scale_home(n) / "home"), store)
        read_s, _ = _median(lambda: read_facts(store, AGENT))
        out: dict = {"facts": n, "read_s": round(read_s, 2)}
        for threshold in (0.85, 0.5):
            cpu: list[float] = []
            seconds, report = _median(lambda t=threshold: find_duplicates(store, AGENT, t), 3, cpu)
            out[f"at_{threshold}"] = {"s": round(seconds, 2), "cpu_s": round(cpu[0], 2),
                                      "groups": len(report.groups),
                                      "duplicates": report.duplicates}  # fmt: skip
    return out


def one_concept(n: int = 10_000, seed: int = 3) -> dict:
    rng = random.Random(seed)
    facts = [
        DuplicateFact(f"f{i}", "service config", " ".join(rng.sample(WORDS, 6)) + f" v{i % 50}",
                      tuple(rng.sample(WORDS[:5], 1)), 0.8, f"2026-01-01T{i:08d}")
        for i in range(n)
    ]  # fmt: skip
    cpu: list[float] = []
    grouped, groups = _median(lambda: group_duplicates(facts, 0.85), 1, cpu)
    sample = facts[:1000]
    words = [tokenize(f.content) for f in sample]
    tags = [tag_set(f.tags) for f in sample]
    concept = tokenize(sample[0].concept)
    start = time.perf_counter()
    for i in range(len(sample)):
        for j in range(i + 1, len(sample)):
            weighted_similarity((words[i], words[j]), (tags[i], tags[j]), (concept, concept))
    per_pair = (time.perf_counter() - start) / (len(sample) * (len(sample) - 1) / 2)
    return {"facts": n, "grouped_s": round(grouped, 2), "cpu_s": round(cpu[0], 2),
            "groups": len(groups),
            "every_pair_estimate_s": round(per_pair * n * (n - 1) / 2, 1)}  # fmt: skip


def main(sizes: list[int]) -> None:
    results = [scale(n) for n in sizes]
    print(json.dumps({"scale": results, "one_concept": one_concept(),
                      "load": os.getloadavg()}, indent=1))  # fmt: skip


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [10_000, 100_000])
