"""Build, once, the homes of 10k / 100k / 1M facts every scale benchmark reads.

Usage: python benchmarks/scale_stores.py [N ...]   (default: 10000 100000 1000000)

Each home is ``<cache>/kuzu-<N>/home/.amplihack/hierarchical_memory/<agent>/kuzu_db``
(the reference library's layout), holding the synthetic store of
``bench_hierarchical.make_export(N)`` imported by memexplorer's HierarchicalMemory,
and ``<cache>/kuzu-<N>/export.json``, the same data as a JSON 1.0 export. The
cache is ``$MEMEXPLORER_BENCH_CACHE`` or ``~/.cache/memexplorer/bench-scale``; a
home is built in a temporary folder and renamed into place last, so a killed
build never leaves a half-built store that later runs would measure. Benchmarks
copy a home before anything that writes.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

from bench_hierarchical import AGENT, make_export

from memexplorer.memory.hierarchical_memory import HierarchicalMemory

SIZES = (10_000, 100_000, 1_000_000)


def cache_root() -> Path:
    configured = os.environ.get("MEMEXPLORER_BENCH_CACHE")
    root = Path(configured) if configured else Path.home() / ".cache/memexplorer/bench-scale"
    root.mkdir(parents=True, exist_ok=True)
    return root


def store_path(home: Path) -> Path:
    return home / ".amplihack" / "hierarchical_memory" / AGENT / "kuzu_db"


def scale_home(n: int) -> Path:
    """The cached folder for N facts (``home/`` and ``export.json`` inside), built if missing."""
    final = cache_root() / f"kuzu-{n}"
    if (final / "export.json").exists():
        return final
    staging = Path(tempfile.mkdtemp(prefix=f".kuzu-{n}-", dir=cache_root()))
    data = make_export(n)
    (staging / "export.json").write_text(json.dumps(data), encoding="utf-8")
    store = store_path(staging / "home")
    store.parent.mkdir(parents=True)
    with HierarchicalMemory(AGENT, store) as memory:
        memory.import_from_json(data)
    try:
        staging.rename(final)
    except OSError:  # another build won the race: keep its copy
        shutil.rmtree(staging)
    return final


def main(argv: list[str]) -> None:
    for n in [int(a) for a in argv] or SIZES:
        start = time.perf_counter()
        folder = scale_home(n)
        print(f"{n} facts: {folder} ({time.perf_counter() - start:.1f} s)")


if __name__ == "__main__":
    main(sys.argv[1:])
