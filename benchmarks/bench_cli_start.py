"""How fast the command line starts on the demo home (issue 17, the click CLI).

Usage: python benchmarks/bench_cli_start.py [RUNS]   (default 15)

Each figure is a fresh ``python -m memexplorer`` process run RUNS times after one
run to warm the caches, hyperfine-style: the median and the fastest wall clock,
and the median CPU time (user + system), which other work on a shared machine
changes much less. The demo home is written into a folder of this run
(``memexplorer demo --home``); settings and caches are private (scale_app.py's
``_private_env``). Printed as the table benchmarks/README.md keeps.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from scale_app import MEMEXPLORER, _private_env, _wall

RUNS = 15


def _figures(argv: list[str], env: dict[str, str], runs: int) -> str:
    _wall(argv, env)  # compile and warm the page cache, outside the figures
    samples = [_wall(argv, env) for _ in range(runs)]
    walls, cpus = [w for w, _ in samples], [c for _, c in samples]
    return (f"{statistics.median(walls):.3f} s (fastest {min(walls):.3f}) | "
            f"{statistics.median(cpus):.3f} s")  # fmt: skip


def main(runs: int) -> None:
    with tempfile.TemporaryDirectory(prefix="memexplorer-cli-start-") as scratch:
        env = _private_env(Path(scratch))
        home, empty = Path(scratch) / "demo" / ".amplihack", Path(scratch) / "empty"
        empty.mkdir()
        subprocess.run([*MEMEXPLORER, "demo", "--home", str(home), "--stats"], env=env,
                       check=True, capture_output=True)  # fmt: skip
        print(f"| command ({runs} runs) | wall: median (fastest) | CPU: median |")
        print("| --- | ---: | ---: |")
        for label, argv in (
            ("`memexplorer stats` on the demo home", ["stats", str(home)]),
            ("`memexplorer stats --json` on the demo home", ["stats", str(home), "--json"]),
            ("`memexplorer stats` on an empty folder (the start)", ["stats", str(empty)]),
            ("`memexplorer --help`", ["--help"]),
            ("`memexplorer --version`", ["--version"]),
        ):
            print(f"| {label} | {_figures([*MEMEXPLORER, *argv], env, runs)} |")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else RUNS)
