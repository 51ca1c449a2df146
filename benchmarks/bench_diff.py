"""Measure `memexplorer diff` at 100k facts: the cached scale home's JSON 1.0 export
(A) against a copy of its store (B), as diff_memory reads and compares them.

Usage: MEMEXPLORER_BENCH_CACHE=DIR python benchmarks/bench_diff.py [N]   (default 100000)

Prints the time to read each side (the export parsed and checked; the store opened
read-only and exported), to compare them (which finds them equal), and to compare
the store with itself under new ids (every fact new: the concept pairing's worst
case, 100k facts added and 100k removed).
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from scale_stores import scale_home, store_path

from memexplorer.operator.diff_sides import read_side
from memexplorer.operator.memory_diff import diff_exports
from memexplorer.storage.collector import collector_paused


def main(n: int) -> None:
    cached = scale_home(n)
    with tempfile.TemporaryDirectory(prefix="bench-diff-") as temp, collector_paused():
        store = Path(temp) / "hierarchical_memory" / "bench-agent" / "kuzu_db"
        store.parent.mkdir(parents=True)
        shutil.copy2(store_path(cached / "home"), store)
        start = time.perf_counter()
        a = read_side(cached / "export.json")
        read_a = time.perf_counter()
        b = read_side(store)
        read_b = time.perf_counter()
        same = diff_exports(a.data, b.data)
        compared = time.perf_counter()
        renamed = {**b.data, "semantic_nodes": [{**node, "memory_id": "x" + node["memory_id"]}
                                                for node in b.data["semantic_nodes"]]}  # fmt: skip
        again = time.perf_counter()
        every = diff_exports(b.data, renamed).table("SemanticMemory")
        done = time.perf_counter()
    print(json.dumps({
        "facts": n, "read_export_s": round(read_a - start, 2),
        "read_store_s": round(read_b - read_a, 2), "compare_s": round(compared - read_b, 2),
        "equal": same.empty, "all_new_compare_s": round(done - again, 2),
        "added": len(every.added), "removed": len(every.removed), "load": os.getloadavg(),
    }))  # fmt: skip


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 100_000)
