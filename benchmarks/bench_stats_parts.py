"""Where the time of ``memexplorer stats`` goes, part by part (issue 17).

Usage: python benchmarks/bench_stats_parts.py [RUNS] [--home HOME]   (default 15)

Each run is a fresh child process, its stdout a pipe read by this one, with byte
code written before the runs (as an installed package has it). The child imports
in the command's own order (the command line, the stats modules, kuzu, rich) and
times each import (what a module shares with one before it counts there), every
``kuzu.Database`` open and close, every query (``Connection.execute``) and the
drawing of the tables, in wall clock and in CPU time of the whole process
(``time.process_time``: kuzu's own threads included); from its ``atexit`` to the
moment this process sees it gone is the interpreter's and the libraries' teardown.
Beside it, a child running ``print()`` (the interpreter's start) and the whole
process of ``python -m memexplorer stats HOME`` with no timers at all. Medians of
RUNS, with the 1-minute load average before and after. The demo home is written
into a folder of this run unless ``--home`` names one.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

RUNS = 15
#: The command less its timed parts: finding the stores, SQLite, Python around kuzu.
REST = "the command's own Python (finding stores, SQLite, the counting code)"
#: An empty PYTHONDONTWRITEBYTECODE is unset for Python: byte code is written and read.
ENV = {**os.environ, "PYTHONDONTWRITEBYTECODE": ""}

CHILD = r"""
import atexit, json, os, sys, time
parts = {}
clock = [time.perf_counter(), time.process_time()]
def lap(name):
    now = [time.perf_counter(), time.process_time()]
    parts[name] = [now[0] - clock[0], now[1] - clock[1]]
    clock[:] = now
def timed(name, call):
    parts.setdefault(name, [0.0, 0.0, 0])
    def run(*args, **kwargs):
        wall, cpu = time.perf_counter(), time.process_time()
        try:
            return call(*args, **kwargs)
        finally:
            part = parts[name]
            part[0] += time.perf_counter() - wall
            part[1] += time.process_time() - cpu
            part[2] += 1
    return run
import memexplorer.cli.main as cli
lap("import the command line (click)")
import memexplorer.cli.commands.stats as stats_command
import memexplorer.memory.flat_graph_rows, memexplorer.memory.flat_sqlite_rows
import memexplorer.memory.inspection
lap("import the stats modules")
import kuzu
lap("import kuzu (asyncio with it)")
import rich.console, rich.markup, rich.table
lap("import rich")
kuzu.Database.__init__ = timed("kuzu opens", kuzu.Database.__init__)
kuzu.Database.close = timed("kuzu closes", kuzu.Database.close)
kuzu.Connection.execute = timed("kuzu queries", kuzu.Connection.execute)
stats_command._print_stats = timed("drawing the tables", stats_command._print_stats)
def report():
    os.write(2, (json.dumps({"parts": parts, "exit_at": time.time()}) + "\n").encode())
atexit.register(report)
command = cli.main
def main():
    code = command()
    sys.stdout.flush()
    lap("the command")
    return code
cli.main = main
sys.argv = ["memexplorer", "stats", sys.argv[1]]
cli.run()  # the entry the memexplorer script runs: the command, then the process's end
"""


def measured(argv: list[str]) -> tuple[float, float, str, float]:
    """Wall and CPU (user + system, from ``wait4``) of one child, its stderr, its end."""
    began = time.perf_counter()
    child = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=ENV)
    out, err = child.stdout.read(), child.stderr.read()  # type: ignore[union-attr]
    _, status, usage = os.wait4(child.pid, 0)
    gone, wall = time.time(), time.perf_counter() - began
    if os.waitstatus_to_exitcode(status) != 0 or not out:
        raise SystemExit(f"{argv} failed: {err.decode()[-400:]}")
    return wall, usage.ru_utime + usage.ru_stime, err.decode(), gone


def main(runs: int, home: Path | None) -> None:
    with tempfile.TemporaryDirectory(prefix="memexplorer-stats-parts-") as scratch:
        if home is None:
            home = Path(scratch) / "demo" / ".amplihack"
            subprocess.run([sys.executable, "-m", "memexplorer", "demo", "--home", str(home),
                            "--stats"], env=ENV, check=True, capture_output=True)  # fmt: skip
        parts_argv = [sys.executable, "-c", CHILD, str(home)]
        plain_argv = [sys.executable, "-m", "memexplorer", "stats", str(home)]
        start_argv = [sys.executable, "-c", "print()"]
        for argv in (parts_argv, plain_argv, start_argv):
            measured(argv)  # byte code and page cache, outside the figures
        load_before = os.getloadavg()[0]
        rows: dict[str, list[tuple[float, float]]] = {}
        counts: dict[str, int] = {}
        for _ in range(runs):
            wall, cpu, _, _ = measured(start_argv)
            rows.setdefault("the interpreter's start (`python -c print()`)", []).append((wall, cpu))
            wall, cpu, err, gone = measured(parts_argv)
            found = json.loads(err.strip().splitlines()[-1])
            timed = [0.0, 0.0]
            for name, part in found["parts"].items():
                rows.setdefault(name, []).append((part[0], part[1]))
                if len(part) > 2:
                    counts[name] = part[2]
                    timed = [timed[0] + part[0], timed[1] + part[1]]
            command = found["parts"]["the command"]
            rows.setdefault(REST, []).append((command[0] - timed[0], command[1] - timed[1]))
            rows.setdefault("teardown (atexit to the process gone)", []).append(
                (gone - found["exit_at"], float("nan"))
            )
            rows.setdefault("the timed child, whole process", []).append((wall, cpu))
            rows.setdefault("`python -m memexplorer stats`, whole process", []).append(
                measured(plain_argv)[:2]
            )
        load = f"{load_before:.1f}-{os.getloadavg()[0]:.1f}"
    print(f"| part of `memexplorer stats` on {home.name} (median of {runs}, load {load}) "
          "| wall ms | CPU ms | calls |")  # fmt: skip
    print("| --- | ---: | ---: | ---: |")
    for name, samples in rows.items():
        wall = statistics.median(w for w, _ in samples) * 1000
        cpus = [c for _, c in samples if c == c]
        cpu = f"{statistics.median(cpus) * 1000:.1f}" if cpus else ""
        print(f"| {name} | {wall:.1f} | {cpu} | {counts.get(name, '')} |")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="?", type=int, default=RUNS)
    parser.add_argument("--home", type=Path, help="a home to read (default: a new demo home)")
    options = parser.parse_args()
    main(options.runs, options.home)
