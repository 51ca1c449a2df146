"""Measure compaction: rewriting a store of N facts into a fresh file, checked and swapped.

Usage: python benchmarks/bench_compaction.py [N ...]   (default: 100000)

For each engine (kuzu, and ladybug when installed) a HierarchicalMemory store of
N synthetic facts (with episodes, SIMILAR_TO, DERIVES_FROM and SUPERSEDES edges;
bench_hierarchical.make_export) is built by an import, a tenth of its facts is
deleted (as a clean would), and ``compact_store`` is timed: reading every row,
building the new file, re-reading it to compare counts and checksums, and the
swap, all inside the write gate. Prints one JSON line per engine.
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from importlib.util import find_spec
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from bench_hierarchical import AGENT, make_export

from memexplorer.memory.hierarchical_memory import HierarchicalMemory
from memexplorer.operator.store_compaction import compact_store
from memexplorer.storage.graph_open import open_graph_store


def bench(n: int, engine: str, workdir: Path) -> dict[str, object]:
    folder = workdir / f"{engine}-{n}"
    folder.mkdir()
    with HierarchicalMemory(AGENT, folder, engine=engine) as memory:  # type: ignore[arg-type]
        start = time.perf_counter()
        memory.import_from_json(make_export(n))
        built = time.perf_counter() - start
        store = memory.db_path
    with open_graph_store(store, read_only=False) as graph:
        graph.execute("MATCH (n:SemanticMemory) WHERE n.memory_id ENDS WITH '7' DETACH DELETE n")
    start = time.perf_counter()
    result = compact_store(store)
    seconds = time.perf_counter() - start
    return {
        "engine": engine,
        "facts": n,
        "rows": sum(result.tables.values()),
        "build_s": round(built, 2),
        "compact_s": round(seconds, 2),
        "bytes_before": result.bytes_before,
        "bytes_after": result.bytes_after,
    }


def main(argv: list[str]) -> None:
    sizes = [int(a) for a in argv] or [100_000]
    engines = ["kuzu"] + (["ladybug"] if find_spec("ladybug") else [])
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            for engine in engines:
                print(json.dumps(bench(n, engine, Path(tmp))), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
