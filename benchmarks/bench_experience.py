"""Measure MemoryConnector / ExperienceStore: construction, full-text search, add.

Usage: python benchmarks/bench_experience.py [N ...]   (default: 100000)

Construction is timed for a new store and for reopening an existing one (read-
only until the first write), on SQLite (the default backend) and Kuzu. Then a
SQLite store of N synthetic experiences (written in batches through
``store_experiences``) is searched with FTS5: broad queries (one word found in
about a fifth of the experiences), two-word queries and narrow ones (a number
found in one or two); each reports median and p95. ``add`` is timed on the
same store through ExperienceStore (quota check and retention included).
"""

from __future__ import annotations

import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timedelta
from pathlib import Path

from memexplorer.memory.connector import MemoryConnector
from memexplorer.memory.experience import Experience, ExperienceType
from memexplorer.memory.store import ExperienceStore

WORDS = [
    "checkout", "payments", "ledger", "cache", "queue", "broker", "replica", "shard",
    "index", "backup", "latency", "throughput", "alert", "runbook", "deploy", "rollback",
    "canary", "region", "zone", "cluster", "node", "pod", "service", "gateway",
    "token", "quota", "budget", "invoice", "refund", "customer", "ticket", "escalation",
]  # fmt: skip
AGENT = "bench-agent"
TYPES = list(ExperienceType)


def _experiences(n: int, seed: int = 7) -> list[Experience]:
    rng = random.Random(seed)
    start = datetime(2026, 1, 1)
    out = []
    for i in range(n):
        words = rng.sample(WORDS, 8)
        out.append(
            Experience(
                experience_type=TYPES[i % 4],
                context=f"{words[0]} {words[1]} on {words[2]} run {i}",
                outcome=f"The {words[3]} {words[4]} fixed {words[5]} after {words[6]} {words[7]}",
                confidence=round(rng.uniform(0.3, 1.0), 2),
                timestamp=start + timedelta(seconds=37 * i),
                experience_id=f"exp_bench_{i:07d}",
                tags=[words[0]],
            )
        )
    return out


def _stats(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return {
        "median_ms": statistics.median(ordered) * 1000,
        "p95_ms": p95 * 1000,
        "runs": len(ordered),
    }


def _time(call, runs: int) -> dict[str, float]:
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        call()
        samples.append(time.perf_counter() - start)
    return _stats(samples)


def bench_construction(workdir: Path, runs: int = 30) -> dict[str, object]:
    results: dict[str, object] = {}
    counter = iter(range(1_000_000))
    for backend in ("sqlite", "kuzu"):

        def new(backend: str = backend) -> None:
            folder = workdir / f"new-{backend}-{next(counter)}"
            MemoryConnector(AGENT, folder, backend=backend).close()

        existing = workdir / f"existing-{backend}"
        with MemoryConnector(AGENT, existing, backend=backend) as connector:
            connector.store_experiences(_experiences(1000))

        def reopen(backend: str = backend, path: Path = existing) -> None:
            MemoryConnector(AGENT, path, backend=backend).close()

        results[f"construct_first_in_process_{backend}"] = _first_in_process(
            workdir / f"cold-{backend}", backend
        )
        new()  # warm imports
        results[f"construct_new_{backend}"] = _time(new, runs)
        results[f"construct_existing_{backend}"] = _time(reopen, runs)
    return results


COLD = """
import sys, time
from memexplorer.memory.connector import MemoryConnector
start = time.perf_counter()
MemoryConnector("bench-agent", sys.argv[1], backend=sys.argv[2]).close()
print(time.perf_counter() - start)
"""


def _first_in_process(folder: Path, backend: str, runs: int = 10) -> dict[str, float]:
    """The first connector of a fresh process (its backend module loads lazily),
    a new store each run; the package import itself is not counted."""
    samples = []
    for i in range(runs):
        done = subprocess.run(
            [sys.executable, "-c", COLD, str(folder / str(i)), backend],
            capture_output=True, text=True, check=True,
        )  # fmt: skip
        samples.append(float(done.stdout))
    return _stats(samples)


def bench_search(n: int, workdir: Path, queries: int = 60) -> dict[str, object]:
    results: dict[str, object] = {"experiences": n}
    path = workdir / f"search-{n}"
    data = _experiences(n)
    start = time.perf_counter()
    with MemoryConnector(AGENT, path) as connector:
        for i in range(0, n, 5000):
            connector.store_experiences(data[i : i + 5000])
    results["build_s"] = time.perf_counter() - start
    rng = random.Random(3)
    broad = [rng.choice(WORDS) for _ in range(queries)]
    pairs = [" ".join(rng.sample(WORDS, 2)) for _ in range(queries)]
    narrow = [f"run {rng.randrange(n)}" for _ in range(queries)]
    with MemoryConnector(AGENT, path) as connector:  # reopened: read-only, as a reader sees it
        connector.search(broad[0])
        for label, batch in (("broad", broad), ("two_words", pairs), ("narrow", narrow)):
            found = []

            def one(batch: list[str] = batch, found: list[int] = found) -> None:
                found.append(len(connector.search(batch[len(found)], limit=10)))

            results[f"search_{label}"] = _time(one, len(batch))
            assert all(count > 0 for count in found), label
    with ExperienceStore(AGENT, storage_path=path, max_memory_mb=1000) as store:
        extra = iter(_experiences(200, seed=11))
        store.add(Experience(ExperienceType.INSIGHT, "warm", "up", 0.5))

        def add() -> None:
            e = next(extra)
            store.add(Experience(e.experience_type, e.context, e.outcome, e.confidence))

        results["store_add"] = _time(add, 200)
    return results


def main(argv: list[str]) -> None:
    sizes = [int(a) for a in argv] or [100_000]
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        print(json.dumps(bench_construction(workdir), default=lambda v: round(v, 3)), flush=True)
        for n in sizes:
            print(json.dumps(bench_search(n, workdir), default=lambda v: round(v, 3)), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
