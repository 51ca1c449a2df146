"""What the LadybugDB worker process costs: per query, and for 100k rows.

Usage: python benchmarks/bench_ladybug_seam.py [RUNS]   (default 500 per query)

Builds a LadybugDB store of 100k facts under /tmp, then times the same work
through the seam (LadybugStore: pickled requests over pipes to the worker) and
with ladybug called directly, in a process of its own that loads only ladybug
(it cannot be loaded beside kuzu). Medians: a trivial RETURN 1 and a point
lookup by primary key (RUNS each, after a warm-up), and 100k rows of four
plain columns fetched as Python rows and as Arrow (5 runs each). Also opening:
the first store of a process (starts a worker) and later ones (an idle worker).
Targets: at most 2 ms a query over the direct call, 100k rows under 1 s.
"""

from __future__ import annotations

import json
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

from memexplorer.storage.graph_open import open_graph_store

ROOT = Path("/tmp/memexplorer-bench-ladybug")
ROWS = 100_000
LOOKUP = "MATCH (f:Fact) WHERE f.id = $id RETURN f.content"
ALL = "MATCH (f:Fact) RETURN f.id, f.content, f.n, f.score"
NODES = "MATCH (f:Fact) RETURN f"

#: The same timings with ladybug in process (run by a Python that loads only it).
DIRECT = r"""
import json, statistics, sys, time
import ladybug
path, runs, q = sys.argv[1], int(sys.argv[2]), json.loads(sys.argv[3])
conn = ladybug.Connection(ladybug.Database(path, read_only=True))
def median(fn, n):
    fn(0)
    times = []
    for i in range(n):
        start = time.perf_counter(); fn(i); times.append(time.perf_counter() - start)
    return statistics.median(times)
lookup = lambda i: conn.execute(q["lookup"], {"id": f"f{i * 7 % q['rows']}"}).get_all()
out = {
    "return_1_ms": median(lambda i: conn.execute("RETURN 1").get_all(), runs) * 1e3,
    "lookup_ms": median(lookup, runs) * 1e3,
    "rows_100k_s": median(lambda i: conn.execute(q["all"]).get_all(), 5),
    "arrow_100k_s": median(lambda i: conn.execute(q["all"]).get_as_arrow(chunk_size=10000), 5),
    "node_rows_100k_s": median(lambda i: conn.execute(q["nodes"]).get_all(), 3),
}
print(json.dumps(out))
"""


def make_store(path: Path) -> None:
    with open_graph_store(path, read_only=False, create="ladybug") as store:
        store.execute(
            "CREATE NODE TABLE Fact(id STRING, content STRING, n INT64, score DOUBLE, "
            "PRIMARY KEY(id))"
        )
        columns = [("id", "STRING"), ("content", "STRING"), ("n", "INT64"), ("score", "DOUBLE")]
        rows = [
            {"id": f"f{i}", "content": f"fact number {i} about the seam", "n": i, "score": i / 7}
            for i in range(ROWS)
        ]
        store.copy_rows("Fact", columns, rows)


def median(fn, runs: int) -> float:
    fn(0)
    times = []
    for i in range(runs):
        start = time.perf_counter()
        fn(i)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 500
    shutil.rmtree(ROOT, ignore_errors=True)
    ROOT.mkdir(parents=True)
    path = ROOT / "ladybug_db"
    start = time.perf_counter()
    make_store(path)  # the first open of this process starts a worker
    build = time.perf_counter() - start
    start = time.perf_counter()
    store = open_graph_store(path)
    warm_open = time.perf_counter() - start
    seam = {
        "return_1_ms": median(lambda i: store.rows("RETURN 1"), runs) * 1e3,
        "lookup_ms": median(
            lambda i: store.rows(LOOKUP, {"id": f"f{i * 7 % ROWS}"}, reuse=True), runs
        )
        * 1e3,
        "rows_100k_s": median(lambda i: store.rows(ALL), 5),
        "arrow_100k_s": median(lambda i: store.arrow(ALL), 5),
        "node_rows_100k_s": median(lambda i: store.rows(NODES), 3),
    }
    assert len(store.rows(ALL)) == ROWS and store.arrow(ALL).num_rows == ROWS
    store.close()
    queries = {"lookup": LOOKUP, "all": ALL, "nodes": NODES, "rows": ROWS}
    result = subprocess.run(
        [sys.executable, "-c", DIRECT, str(path), str(runs), json.dumps(queries)],
        capture_output=True,
        text=True,
        check=True,
    )
    direct = json.loads(result.stdout)
    out = {
        "runs": runs,
        "rows": ROWS,
        "build_store_s (first open starts the worker; COPY of 100k rows)": round(build, 3),
        "open_with_idle_worker_ms": round(warm_open * 1e3, 2),
        "seam": {k: round(v, 4) for k, v in seam.items()},
        "direct": {k: round(v, 4) for k, v in direct.items()},
        "overhead_ms": {
            "return_1": round(seam["return_1_ms"] - direct["return_1_ms"], 4),
            "lookup": round(seam["lookup_ms"] - direct["lookup_ms"], 4),
        },
        "targets": {
            "overhead_at_most_2_ms": max(
                seam["return_1_ms"] - direct["return_1_ms"], seam["lookup_ms"] - direct["lookup_ms"]
            )
            <= 2,
            "100k_rows_under_1_s": max(seam["rows_100k_s"], seam["arrow_100k_s"]) < 1,
        },
    }
    print(json.dumps(out, indent=2))
    shutil.rmtree(ROOT, ignore_errors=True)


if __name__ == "__main__":
    main()
