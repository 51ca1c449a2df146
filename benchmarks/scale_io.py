"""bench_scale.py's rows for moving memory in and out: export, import, stats.

Each operation runs in a child process of its own (wall time, peak RSS, CPU):
memexplorer's CLI export and import, its library ``export_to_json()`` plus a
file write, ``memexplorer stats``; and amplihack-memory-lib's own
``export_to_json()`` plus ``json.dump`` (compact, its fastest writer) and
``import_from_json`` when ``LIBRARY_PYTHON`` and ``LIBRARY_SRC`` name its
virtualenv and source (see bench_query.py). Every write goes to a scratch copy
of the cached home; the library opens stores read-write, so it gets a copy too.
The library imports one query per record (10k facts: 65 s of CPU, 1.4 GB), so
its import runs only up to ``LIBRARY_IMPORT_MAX`` facts.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

from bench_hierarchical import AGENT
from scale_rows import Measured, Row, peak_of
from scale_stores import store_path

LIBRARY_IMPORT_MAX = 10_000
TARGETS = {
    ("export (CLI)", 1_000_000): "< 60 s, < 600 MB",
    ("import (CLI)", 1_000_000): "< 60 s, < 600 MB",
    ("import (CLI)", 100_000): "< 5 s",
    ("export (CLI)", 100_000): "<= reference export",
    ("stats (CLI)", 1_000_000): "< 1 s",
}

MEMEXPLORER_EXPORT = r"""
import json, sys
from memexplorer.memory.hierarchical_memory import HierarchicalMemory
with HierarchicalMemory(sys.argv[1], sys.argv[2], mode="read") as memory:
    data = memory.export_to_json()
with open(sys.argv[3], "w") as handle:
    json.dump(data, handle)
"""
LIBRARY_EXPORT = r"""
import json, sys
from amplihack_memory.hierarchical_memory import HierarchicalMemory
memory = HierarchicalMemory(sys.argv[1], sys.argv[2])
data = memory.export_to_json()
with open(sys.argv[3], "w") as handle:
    json.dump(data, handle)
"""
LIBRARY_IMPORT = r"""
import json, sys
from amplihack_memory.hierarchical_memory import HierarchicalMemory
with open(sys.argv[3]) as handle:
    data = json.load(handle)
HierarchicalMemory(sys.argv[1], sys.argv[2]).import_from_json(data)
"""


def _row(operation: str, n: int, tool: str, run: Measured) -> Row:
    said = run.stderr.strip().splitlines() or ["?"]
    error = next((line for line in said if line.startswith("error:")), said[-1])
    note = "" if run.returncode == 0 else f"failed: {error}"
    return Row(
        operation, n, tool, run.seconds if run.returncode == 0 else None, run.peak_mb,
        TARGETS.get((operation, n), ""), note[:160], run.load, run.cpu_seconds,
    )  # fmt: skip


def _memexplorer(*args: str) -> list[str]:
    return [sys.executable, "-m", "memexplorer", *args]


def measure(n: int, folder: Path) -> list[Row]:
    rows: list[Row] = []
    with tempfile.TemporaryDirectory(prefix=f"scale-io-{n}-") as name:
        scratch = Path(name)
        home = scratch / "home"
        shutil.copytree(folder / "home", home)
        store = store_path(home)
        source = folder / "export.json"
        out = scratch / "out.json"
        run = peak_of(_memexplorer("export", AGENT, str(out), "--storage-path", str(store),
                                   "--force"))  # fmt: skip
        rows.append(_row("export (CLI)", n, "memexplorer", run))
        run = peak_of([sys.executable, "-c", MEMEXPLORER_EXPORT, AGENT, str(store), str(out)])
        rows.append(_row("export_to_json + write", n, "memexplorer", run))
        fresh = scratch / "fresh" / ".amplihack"
        run = peak_of(_memexplorer("import", AGENT, str(source), "--home", str(fresh)))
        rows.append(_row("import (CLI)", n, "memexplorer", run))
        run = peak_of(_memexplorer("stats", str(home / ".amplihack")))
        rows.append(_row("stats (CLI)", n, "memexplorer", run))
        rows += _library(n, store, source, scratch)
    return rows


def _library(n: int, store: Path, source: Path, scratch: Path) -> list[Row]:
    python, src = os.environ.get("LIBRARY_PYTHON"), os.environ.get("LIBRARY_SRC")
    if not python or not src:
        return []
    env = {"PYTHONPATH": src}
    copy = scratch / "library" / "kuzu_db"
    copy.parent.mkdir()
    shutil.copy2(store, copy)
    out = scratch / "library.json"
    run = peak_of([python, "-c", LIBRARY_EXPORT, AGENT, str(copy), str(out)], env=env)
    rows = [_row("export_to_json + write", n, "reference", run)]
    if n <= LIBRARY_IMPORT_MAX:
        target = scratch / "library-import" / "kuzu_db"
        target.parent.mkdir()
        run = peak_of([python, "-c", LIBRARY_IMPORT, AGENT, str(target), str(source)], env=env)
        rows.append(_row("import_from_json", n, "reference", run))
    else:
        note = f"not run: one query per record (measured up to {LIBRARY_IMPORT_MAX:,} facts)"
        rows.append(Row("import_from_json", n, "reference", None, note=note))
    return rows
