"""Measure clean at scale: the preview over a whole store, then backup + delete and restore.

Usage: python benchmarks/bench_clean.py [N ...]   (default: 100000)

A hierarchical store of N facts (plus N/10 episodes, ~2N SIMILAR_TO and N
DERIVES_FROM edges) is built with HierarchicalMemory.import_from_json from
bench_hierarchical's generated export. The preview (target: under 2 s at
100k rows) is timed for everything ('*'), a concept glob, and an age filter;
then one real clean of everything (backup written first) and its restore.
"""

from __future__ import annotations

import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

from bench_hierarchical import AGENT, make_export

from memexplorer.memory.hierarchical_memory import HierarchicalMemory
from memexplorer.operator.backups import restore_backup
from memexplorer.operator.clean import clean_store, clean_target, preview_clean
from memexplorer.operator.clean_selection import Selection


def _median_s(run, repeat: int = 3) -> float:
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def bench(n: int, workdir: Path) -> dict[str, float]:
    folder = workdir / f"store-{n}"
    with HierarchicalMemory(AGENT, folder) as memory:
        memory.import_from_json(make_export(n))
    target = clean_target(folder)
    results: dict[str, float] = {"facts": n}
    everything = preview_clean(target, Selection("*"))
    results["rows"] = everything.rows
    results["edges"] = everything.edge_count
    selections = {
        "preview_all_s": Selection("*", agent=AGENT),
        "preview_glob_s": Selection("c*e *", table="SemanticMemory"),
        "preview_older_than_s": Selection("*", older_than_days=30),
    }
    for label, selection in selections.items():
        results[label] = _median_s(lambda s=selection: preview_clean(target, s))
    start = time.perf_counter()
    result = clean_store(target, Selection("*"), home=workdir / "home")
    results["clean_all_s"] = time.perf_counter() - start
    assert result.backup is not None
    results["backup_mb"] = sum(p.stat().st_size for p in result.backup.path.iterdir()) / 1e6
    start = time.perf_counter()
    restored = restore_backup(result.backup.path)
    results["restore_all_s"] = time.perf_counter() - start
    assert restored.restored == everything.rows + everything.edge_count
    return results


def main(argv: list[str]) -> None:
    sizes = [int(a) for a in argv] or [100_000]
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            print(json.dumps(bench(n, Path(tmp)), default=lambda v: round(v, 3)), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
