"""How fast the command line starts on the demo home (issue 17, the click CLI).

Usage: python benchmarks/bench_cli_start.py [RUNS] [--before TREE]   (default 15)

``stats`` is also run on a folder of four copies of the demo home (36 stores), where
reading the stores in several processes (``storage/parallel_reads.py``) counts most.

Each figure is a fresh ``python -m memexplorer`` process run RUNS times after one
run to warm the caches, hyperfine-style: the median and the fastest wall clock,
and the median and least CPU time (user + system, every thread, from ``wait4``),
which other work on a shared machine changes much less; beside them the 1-minute
load average before and after the runs. The demo home is written into a folder of
this run (``memexplorer demo --home``); settings and caches are private
(scale_app.py's ``_private_env``). Byte-code is written (an installed package has
it), whatever ``PYTHONDONTWRITEBYTECODE`` says.

``--before TREE`` compares with another source tree of memexplorer (``git archive
main | tar -x -C TREE``), run interleaved with this one, round by round, so both
see the same load. Both then run as ``python -S`` with the tree and this
environment's site-packages on ``PYTHONPATH`` (an editable install would
otherwise pick this tree): about 10 ms less start-up than ``-m memexplorer``.
Printed as the tables benchmarks/README.md keeps.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

from scale_app import MEMEXPLORER, _private_env, _wall

RUNS = 15
HERE = Path(__file__).resolve().parent.parent


def _commands(home: Path, empty: Path, homes: Path) -> list[tuple[str, list[str]]]:
    return [
        ("`memexplorer stats` on the demo home", ["stats", str(home)]),
        ("`memexplorer stats --json` on the demo home", ["stats", str(home), "--json"]),
        ("`memexplorer stats` on four demo homes (36 stores)", ["stats", str(homes)]),
        ("`memexplorer stats` on an empty folder (the start)", ["stats", str(empty)]),
        ("`memexplorer --help`", ["--help"]),
        ("`memexplorer --version`", ["--version"]),
    ]


def _tree(tree: Path) -> list[str]:
    """``python -S -m memexplorer`` importing memexplorer from ``tree``."""
    return [sys.executable, "-S", "-c",
            f"import sys; sys.path[:0] = [{str(tree)!r}, "
            f"{sysconfig.get_paths()['purelib']!r}]; import runpy; "
            "runpy.run_module('memexplorer', run_name='__main__')"]  # fmt: skip


def _cell(samples: list[tuple[float, float]]) -> str:
    walls, cpus = [w for w, _ in samples], [c for _, c in samples]
    return (f"{statistics.median(walls):.3f} s ({min(walls):.3f}) | "
            f"{statistics.median(cpus):.3f} s ({min(cpus):.3f})")  # fmt: skip


def _rounds(variants: list[list[str]], env: dict[str, str], runs: int) -> list[str]:
    for argv in variants:
        _wall(argv, env)  # compile and warm the page cache, outside the figures
    samples: list[list[tuple[float, float]]] = [[] for _ in variants]
    load_before = os.getloadavg()[0]
    for _ in range(runs):
        for index, argv in enumerate(variants):
            samples[index].append(_wall(argv, env))
    load = f"{load_before:.1f}–{os.getloadavg()[0]:.1f}"
    return [f"{_cell(s)} | {load}" for s in samples]


def main(runs: int, before: Path | None) -> None:
    with tempfile.TemporaryDirectory(prefix="memexplorer-cli-start-") as scratch:
        env = _private_env(Path(scratch))
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        home, empty = Path(scratch) / "demo" / ".amplihack", Path(scratch) / "empty"
        empty.mkdir()
        subprocess.run([*MEMEXPLORER, "demo", "--home", str(home), "--stats"], env=env,
                       check=True, capture_output=True)  # fmt: skip
        homes = Path(scratch) / "homes"
        for name in "abcd":  # a folder of homes: stats reads every store under it
            shutil.copytree(home, homes / name)
        head = "wall: median (fastest) | CPU: median (least) | load"
        if before is None:
            print(f"| command ({runs} runs) | {head} |")
            print("| --- | ---: | ---: | ---: |")
            for label, argv in _commands(home, empty, homes):
                (row,) = _rounds([[*MEMEXPLORER, *argv]], env, runs)
                print(f"| {label} | {row} |")
            return
        print(f"| command ({runs} rounds) | tree | {head} |")
        print("| --- | --- | ---: | ---: | ---: |")
        for label, argv in _commands(home, empty, homes):
            old, new = _rounds([[*_tree(before), *argv], [*_tree(HERE), *argv]], env, runs)
            print(f"| {label} | before | {old} |")
            print(f"| | after | {new} |")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="?", type=int, default=RUNS)
    parser.add_argument("--before", type=Path, help="another memexplorer source tree")
    options = parser.parse_args()
    main(options.runs, options.before)
