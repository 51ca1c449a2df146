"""Measure the home-wide search (``memexplorer grep``, ctrl+f) on a home of several stores.

Usage: MEMEXPLORER_BENCH_CACHE=DIR python benchmarks/bench_find.py

Two homes are laid out from the cached scale stores (benchmarks/scale_stores.py,
copied, never written): "100k+3x10k" (the 100k-fact store and three 10k-fact
stores: 130k facts, 13k episodes, four stores) and "10x10k" (ten 10k-fact stores:
100k facts, ten stores to open). For each, three texts: a common word (in about
half the facts), a rare one (a number in a handful) and one found nowhere (every
table scanned to the end). First results: the time until the search yields its
first group (one store opened, one table counted, one page read). Full search:
until the last group. Each run opens every store afresh, as grep does; the first
run of each home is reported apart (cold file cache), then the median of REPEATS.
Targets (issue 19): first results under 300 ms and a full search under 3 s.
"""

from __future__ import annotations

import json
import os
import platform
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from scale_stores import scale_home, store_path

from memexplorer.operator.find import find_text

REPEATS = 5
TEXTS = {"common": "ledger", "rare": "uses 4242 ", "nowhere": "no such words anywhere"}


def _home(folder: Path, stores: list[tuple[int, str]]) -> Path:
    home = folder / ".amplihack"
    for size, agent in stores:
        target = home / "hierarchical_memory" / agent / "kuzu_db"
        target.parent.mkdir(parents=True)
        shutil.copy2(store_path(scale_home(size) / "home"), target)
    return home


def _once(home: Path, text: str) -> tuple[float, float, int, int]:
    start = time.perf_counter()
    first = None
    groups = hits = 0
    for group in find_text(home, text):
        if first is None:
            first = time.perf_counter() - start
        groups += 1
        hits += group.total
    total = time.perf_counter() - start
    return (first if first is not None else total), total, groups, hits


def main() -> None:
    homes = {
        "100k+3x10k": [(100_000, "bench-agent"), *((10_000, f"agent-{i}") for i in range(3))],
        "10x10k": [(10_000, f"agent-{i}") for i in range(10)],
    }
    with tempfile.TemporaryDirectory(prefix="bench-find-") as temp:
        for name, stores in homes.items():
            home = _home(Path(temp) / name, stores)
            for label, text in TEXTS.items():
                cold = _once(home, text)
                runs = [_once(home, text) for _ in range(REPEATS)]
                print(json.dumps({
                    "home": name, "text": label, "groups": cold[2], "hits": cold[3],
                    "cold_first_ms": round(cold[0] * 1000, 1),
                    "cold_full_ms": round(cold[1] * 1000, 1),
                    "first_ms": round(statistics.median(r[0] for r in runs) * 1000, 1),
                    "full_ms": round(statistics.median(r[1] for r in runs) * 1000, 1),
                    "max_full_ms": round(max(r[1] for r in runs) * 1000, 1),
                }), flush=True)  # fmt: skip
    print(json.dumps({"machine": platform.processor() or platform.machine(),
                      "cpus": os.cpu_count(), "load": os.getloadavg()}))  # fmt: skip


if __name__ == "__main__":
    main()
