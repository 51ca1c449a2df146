"""Measure the operator's export and import (engine.transfer, what the CLI runs).

Usage: python benchmarks/bench_transfer.py [N ...]   (default: 100000)

Writes a synthetic export of N facts (see bench_hierarchical.make_export) as a
file, imports it into a fresh store with ``import_agent_store`` (staged copy,
rename), imports it again over the now full store (the replace path), and
exports it back to a file with ``export_agent_store``.
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path

from bench_hierarchical import AGENT, make_export

from memexplorer.operator.transfer import export_agent_store, import_agent_store


def bench(n: int, workdir: Path) -> dict[str, float]:
    source = workdir / f"export-{n}.json"
    source.write_text(json.dumps(make_export(n)))
    store = workdir / f"store-{n}"
    results: dict[str, float] = {"facts": n, "file_mb": source.stat().st_size / 1e6}
    start = time.perf_counter()
    import_agent_store(AGENT, source, storage_path=store, home=workdir / "home")
    results["import_fresh_s"] = time.perf_counter() - start
    start = time.perf_counter()
    import_agent_store(AGENT, source, storage_path=store, home=workdir / "home")
    results["import_replace_s"] = time.perf_counter() - start
    start = time.perf_counter()
    export_agent_store(AGENT, workdir / "out.json", storage_path=store)
    results["export_s"] = time.perf_counter() - start
    return results


def main(argv: list[str]) -> None:
    sizes = [int(a) for a in argv] or [100_000]
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            print(json.dumps(bench(n, Path(tmp)), default=lambda v: round(v, 3)), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
