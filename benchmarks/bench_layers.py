"""Issue 17's measured targets side by side in one run: stats, import and export.

Usage: LIBRARY_PYTHON=/tmp/libvenv-kuzu/bin/python LIBRARY_SRC=/tmp/lib-4ae0813/src \
       MEMEXPLORER_BENCH_CACHE=/work/scale-cache nice -n 5 python benchmarks/bench_layers.py

Every figure is a fresh child process (``scale_rows.peak_of``: wall time, CPU
seconds, peak RSS of that child and its children), run ``--repeat`` times with
the kinds taken in turn, so each median saw the same machine; each row also
gives the 1-minute load average its runs started at (the machine is shared).

- ``memexplorer stats`` of the demo home (``operator.demo.write_demo_home`` in a
  temporary folder): the whole process, target under 0.25 s. It runs with byte
  code, as an installed package has it: one run writes it before the figures,
  whatever ``PYTHONDONTWRITEBYTECODE`` says (set, every run compiled memexplorer's
  ~40 modules from source: 14 ms more CPU, median of 20, issue 17).

A child's peak RSS is never below its parent's RSS when it started (Linux keeps
the larger at ``exec``): the demo home is written by a child of its own, so this
process stays small, and the table gives that floor (a child running ``true``).
- ``memexplorer import`` of the cached 100k-fact export into a new home: the
  whole process, targets under 10 s and a peak under 250 MB.
- Export of the cached 100k-fact store, two comparisons with amplihack-memory-lib
  (its own virtualenv, on a copy of the store: it opens stores read-write):
  (1) ``memexplorer export AGENT FILE``, the whole process, against a process
  that imports the library, opens the store, runs ``export_to_json()`` and
  writes the result with ``json.dump`` (compact, its fastest writer); (2) inside
  such a process on each side, ``HierarchicalMemory.export_to_json()`` plus the
  same ``json.dump`` to a file, timed by the child itself (the start of Python
  and of each library left out). Target: memexplorer at least as fast.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from bench_hierarchical import AGENT
from scale_rows import Measured, peak_of
from scale_stores import scale_home, store_path

FACTS = 100_000
#: The span timed inside an export child: export_to_json() and the file write.
EXPORT_SPAN = r"""
import json, sys, time
from {module} import HierarchicalMemory
memory = HierarchicalMemory(sys.argv[1], sys.argv[2]{read})
start = time.perf_counter()
data = memory.export_to_json()
with open(sys.argv[3], "w") as handle:
    json.dump(data, handle)
print(json.dumps({{"span": time.perf_counter() - start}}))
"""
MEMEXPLORER_EXPORT = EXPORT_SPAN.format(
    module="memexplorer.memory.hierarchical_memory", read=', mode="read"'
)
LIBRARY_EXPORT = EXPORT_SPAN.format(module="amplihack_memory.hierarchical_memory", read="")


def memexplorer(*args: str) -> list[str]:
    return [sys.executable, "-m", "memexplorer", *args]


def checked(run: Measured, what: str) -> Measured:
    if run.returncode != 0:
        raise SystemExit(f"{what} failed (exit {run.returncode}): {run.stderr.strip()[-400:]}")
    return run


def span(run: Measured) -> float:
    return float(json.loads(run.stdout.strip().splitlines()[-1])["span"])


class Runs:
    """The measured runs of each kind, in the order they were taken."""

    def __init__(self) -> None:
        self.runs: dict[str, list[Measured]] = {}

    def add(self, kind: str, run: Measured) -> Measured:
        self.runs.setdefault(kind, []).append(run)
        print(json.dumps({"kind": kind, "wall": round(run.seconds, 3),
                          "cpu": round(run.cpu_seconds, 3), "peak_mb": round(run.peak_mb),
                          "load": run.load}), flush=True)  # fmt: skip
        return run

    def median(self, kind: str, value: Callable[[Measured], float]) -> float:
        return statistics.median(value(run) for run in self.runs[kind])

    def loads(self, kind: str) -> str:
        seen = [run.load for run in self.runs[kind]]
        return f"{min(seen):.1f}-{max(seen):.1f}"


DEMO = "import sys; from memexplorer.operator.demo import write_demo_home as w; w(sys.argv[1])"
#: An empty PYTHONDONTWRITEBYTECODE is unset for Python: byte code is written and read.
BYTE_CODE = {"PYTHONDONTWRITEBYTECODE": ""}


def measure(repeat: int, scratch: Path, library: tuple[str, str] | None) -> Runs:
    runs = Runs()
    demo = scratch / "demo" / ".amplihack"
    checked(peak_of([sys.executable, "-c", DEMO, str(demo)]), "the demo home")
    cached = scale_home(FACTS)
    home = scratch / "home"
    shutil.copytree(cached / "home", home)
    store = store_path(home)
    copy = scratch / "library" / "kuzu_db"
    copy.parent.mkdir()
    shutil.copy2(store, copy)
    source, out = cached / "export.json", scratch / "out.json"
    env = {"PYTHONPATH": library[1]} if library else {}
    stats = memexplorer("stats", str(demo))
    checked(peak_of(stats, env=BYTE_CODE), "stats (writing its byte code)")
    for turn in range(repeat):
        runs.add("floor", checked(peak_of(["true"]), "true"))
        for _ in range(3):  # stats is short: three runs a turn
            runs.add("stats", checked(peak_of(stats, env=BYTE_CODE), "stats"))
        fresh = scratch / f"import-{turn}" / ".amplihack"
        run = peak_of(memexplorer("import", AGENT, str(source), "--home", str(fresh)))
        runs.add("import", checked(run, "import"))
        shutil.rmtree(fresh.parent)
        run = peak_of(memexplorer("export", AGENT, str(out), "--storage-path", str(store),
                                  "--force"))  # fmt: skip
        runs.add("export (CLI)", checked(run, "export"))
        run = peak_of([sys.executable, "-c", MEMEXPLORER_EXPORT, AGENT, str(store), str(out)])
        runs.add("export_to_json + write", checked(run, "export_to_json"))
        if library:
            argv = [library[0], "-c", LIBRARY_EXPORT, AGENT, str(copy), str(out)]
            runs.add("reference export_to_json + write", checked(peak_of(argv, env=env), "ref"))
    return runs


def table(runs: Runs, repeat: int) -> str:
    def wall(run: Measured) -> float:
        return run.seconds

    def cpu(run: Measured) -> float:
        return run.cpu_seconds

    def peak(run: Measured) -> float:
        return run.peak_mb

    lines = [
        f"| measured (median of {repeat}; stats: of {3 * repeat}) | wall s | CPU s | peak MB "
        "| load | target |",
        "| --- | ---: | ---: | ---: | --- | --- |",
    ]
    targets = {"stats": "< 0.25 s", "import": "< 10 s, < 250 MB"}
    names = {"floor": "a child running `true` (the floor of every peak below)",
             "stats": "`memexplorer stats` of the demo home, whole process",
             "import": "`memexplorer import` of 100k facts, whole process",
             "export (CLI)": "`memexplorer export` of 100k facts, whole process (1)",
             "export_to_json + write": "memexplorer `export_to_json()` + `json.dump`, "
                                       "whole process (2: span below)",
             "reference export_to_json + write": "reference `export_to_json()` + "
                                                 "`json.dump`, whole process (1, 2)"}  # fmt: skip
    for kind in runs.runs:
        lines.append(
            f"| {names[kind]} | {runs.median(kind, wall):.2f} | {runs.median(kind, cpu):.2f} | "
            f"{runs.median(kind, peak):.0f} | {runs.loads(kind)} | {targets.get(kind, '')} |"
        )
    for kind in ("export_to_json + write", "reference export_to_json + write"):
        if kind in runs.runs:
            seconds = runs.median(kind, span)
            lines.append(f"| {names[kind].split(',')[0]}: the span alone (2) | {seconds:.2f} "
                         f"| | | {runs.loads(kind)} | |")  # fmt: skip
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs of each (default 3)")
    args = parser.parse_args()
    python, src = os.environ.get("LIBRARY_PYTHON"), os.environ.get("LIBRARY_SRC")
    library = (python, src) if python and src else None
    if library is None:
        print("LIBRARY_PYTHON / LIBRARY_SRC not set: the reference's export is left out")
    with tempfile.TemporaryDirectory(prefix="bench-layers-") as name:
        runs = measure(args.repeat, Path(name), library)
    print(table(runs, args.repeat))


if __name__ == "__main__":
    main()
