"""How fast the CLI starts and the app answers on a home of N facts (issue 18).

Usage: python benchmarks/scale_app.py [N ...]   (default: 10000 100000 1000000)

Reads the cached homes of scale_stores.py (``$MEMEXPLORER_BENCH_CACHE``), never
writing into them. For each size, ``figures(n, folder)`` returns medians of (and
``measure(n, folder)`` the same as bench_scale.py's rows, see scale_rows.py):

- ``help_s``, ``stats_start_s``: the wall clock of ``memexplorer --help`` and of
  ``memexplorer stats`` on an empty folder (the start, nothing to read), each a
  fresh process; ``stats_s``: ``memexplorer stats`` on the home of N facts. Each
  has its ``_cpu_s`` twin, the process's CPU time (user + system), which the other
  work on a shared machine changes much less than the wall clock.
- the app, driven headless in a fresh process with Textual's ``run_test`` (120x36)
  on the home, every figure from the key's command to the screen painted:
  ``agents_s`` (process start to the agents listed, counts included),
  ``start_s`` (process start to the facts' first page drawn, the keys that open
  it sent as soon as each step is on screen), ``tables_ms`` (expanding the agent),
  ``first_rows_ms``, ``last_page_ms``, ``sort_ms`` / ``sort_reverse_ms`` (by
  concept), ``filter_ms`` ("rollback canary") and the child's peak RSS; the
  ``_cpu`` twins are the app process's CPU time (every thread) over the same span.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from scale_stores import SIZES, scale_home

#: Each CLI start is measured this many times, each app run this many times.
CLI_RUNS, APP_RUNS = 7, 3
MEMEXPLORER = [sys.executable, "-m", "memexplorer"]

APP_CHILD = r"""
import asyncio, json, resource, sys, time
started = float(sys.argv[2])
from textual.widgets import Input
from memexplorer.app.explorer_app import create_app
from memexplorer.app.widgets.node_table import NodeTable
from memexplorer.app.widgets.stores_tree import AgentItem, StoresTree, TableItem

out = {}

def cpu():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime

async def until(pilot, ready, what, limit=120.0):
    deadline = time.perf_counter() + limit
    while not ready():
        if time.perf_counter() > deadline:
            raise SystemExit(f"the app never showed {what}: {out}")
        await pilot.pause(0.002)

def agents(tree):
    return [n for s in tree.root.children for n in s.children if isinstance(n.data, AgentItem)]

async def main():
    app = create_app(sys.argv[1])
    async with app.run_test(size=(120, 36)) as pilot:
        tree = app.screen.query_one(StoresTree)
        await until(pilot, lambda: agents(tree), "the agents")
        out["agents_s"] = time.time() - started
        out["agents_cpu_s"] = cpu()
        agent = agents(tree)[0]
        began = time.perf_counter()
        tree.move_cursor(agent)
        agent.expand()
        await until(pilot, lambda: any(isinstance(c.data, TableItem) for c in agent.children),
                    "the tables")
        out["tables_ms"] = (time.perf_counter() - began) * 1000
        table = app.screen.query_one(NodeTable)

        async def timed(label, action, check):
            painted = asyncio.Event()
            original = NodeTable.on_node_table_page_loaded

            async def loaded(self, message):
                await original(self, message)
                self.call_after_refresh(painted.set)

            NodeTable.on_node_table_page_loaded = loaded
            began, spent = time.perf_counter(), cpu()
            try:
                action()
                await asyncio.wait_for(painted.wait(), 120)
            finally:
                NodeTable.on_node_table_page_loaded = original
            out[label] = (time.perf_counter() - began) * 1000
            out[label.replace("_ms", "_cpu_ms")] = (cpu() - spent) * 1000
            await pilot.pause()
            assert check(table.page), (label, table.page.describe())

        facts = next(c for c in agent.children if c.data.table.name == "SemanticMemory")
        screen = app.screen
        await timed("first_rows_ms", lambda: tree.select_node(facts), lambda p: p.total > 0)
        out["start_s"] = time.time() - started
        out["start_cpu_s"] = cpu()
        await timed("last_page_ms", screen.action_last_page, lambda p: p.last == p.total)
        await timed("first_page_ms", screen.action_first_page, lambda p: p.first == 1)
        await pilot.press("right")
        await timed("sort_ms", screen.action_sort, lambda p: p.query.sort == "concept")
        await timed("sort_reverse_ms", screen.action_sort, lambda p: p.query.descending)
        await pilot.press("slash", *"rollback canary")
        box = screen.query_one("#filter")
        submitted = Input.Submitted(box, box.value)
        await timed("filter_ms", lambda: box.post_message(submitted), lambda p: p.query.text)
        out["filter_rows"] = table.page.total
        out["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps(out))

asyncio.run(main())
"""


def _wall(argv: list[str], env: dict[str, str] | None = None) -> tuple[float, float]:
    """The wall clock and the CPU time (user + system) of one run of ``argv``."""
    began = time.perf_counter()
    child = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - began
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"{argv} failed: {child.stderr.read().decode() if child.stderr else ''}")
    return wall, usage.ru_utime + usage.ru_stime


def _median(samples: list[float]) -> float:
    return round(statistics.median(samples), 3)


def _private_env(scratch: Path) -> dict[str, str]:
    """The app's settings, history and engine cache in a folder of this run: the
    operator's own are never read or written."""
    env = dict(os.environ)
    for name in ("HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME"):
        env[name] = str(scratch / name.lower())
    env["MEMEXPLORER_READ_ONLY"] = "1"
    return env


def cli_times(home: Path, env: dict[str, str], runs: int = CLI_RUNS) -> dict[str, float]:
    """Medians of the CLI's start (``--help``, ``stats`` on nothing) and of ``stats``
    on the home."""
    empty = Path(env["HOME"]) / "empty"
    empty.mkdir(parents=True, exist_ok=True)
    _wall([*MEMEXPLORER, "--help"], env)  # compile once, outside the figures
    figures: dict[str, float] = {}
    for name, argv in (
        ("help", [*MEMEXPLORER, "--help"]),
        ("stats_start", [*MEMEXPLORER, "stats", str(empty)]),
        ("stats", [*MEMEXPLORER, "stats", str(home)]),
    ):
        samples = [_wall(argv, env) for _ in range(runs)]
        figures[f"{name}_s"] = _median([wall for wall, _ in samples])
        figures[f"{name}_cpu_s"] = _median([cpu for _, cpu in samples])
    return figures


def app_times(home: Path, env: dict[str, str], runs: int = APP_RUNS) -> dict[str, float]:
    """Medians of ``runs`` headless app sessions on the home, each a fresh process."""
    samples = []
    for _ in range(runs):
        started = time.time()
        child = subprocess.run(
            [sys.executable, "-c", APP_CHILD, str(home), repr(started)],
            capture_output=True, text=True, check=True, env=env, timeout=900,
        )  # fmt: skip
        samples.append(json.loads(child.stdout.strip().splitlines()[-1]))
    return {key: _median([s[key] for s in samples]) for key in samples[0]}


def figures(n: int, folder: Path) -> dict[str, object]:
    """Every figure above for the cached home of ``n`` facts in ``folder``."""
    home = folder / "home" / ".amplihack"
    with tempfile.TemporaryDirectory(prefix="memexplorer-scale-app-") as scratch:
        env = _private_env(Path(scratch))
        found: dict[str, object] = {"facts": n, "load_before": round(os.getloadavg()[0], 2)}
        found.update(cli_times(home, env))
        found.update(app_times(home, env))
    found["load_after"] = round(os.getloadavg()[0], 2)
    return found


#: bench_scale.py's rows: (operation, figure, its CPU twin, seconds per unit, target).
ROWS = (
    ("memexplorer --help (start)", "help_s", "help_cpu_s", 1, "< 0.25 s"),
    ("memexplorer stats (start: nothing to read)", "stats_start_s", "stats_start_cpu_s", 1,
     "< 0.25 s"),
    ("memexplorer stats", "stats_s", "stats_cpu_s", 1, "< 1 s"),
    ("app: agents listed (from process start)", "agents_s", "agents_cpu_s", 1, "< 1.5 s"),
    ("app: start to the first page of facts", "start_s", "start_cpu_s", 1, "< 2 s"),
    ("app: last page", "last_page_ms", "last_page_cpu_ms", 1000, "< 300 ms"),
    ("app: sort by concept", "sort_ms", "sort_cpu_ms", 1000, "< 300 ms"),
    ("app: sort reversed", "sort_reverse_ms", "sort_reverse_cpu_ms", 1000, "< 300 ms"),
    ("app: filter 'rollback canary' (every text column)", "filter_ms", "filter_cpu_ms", 1000,
     "< 1 s"),
)  # fmt: skip


def measure(n: int, folder: Path) -> list:
    """bench_scale.py's interface (scale_rows.py): one Row per operation at ``n``."""
    from scale_rows import Row

    found = figures(n, folder)
    load = float(found["load_before"])  # type: ignore[arg-type]
    rows = []
    for operation, key, cpu_key, unit, target in ROWS:
        app = key not in ("help_s", "stats_start_s", "stats_s")
        rows.append(Row(
            operation, n, "memexplorer", float(found[key]) / unit,  # type: ignore[arg-type]
            peak_mb=float(found["peak_rss_mb"]) if app else None,  # type: ignore[arg-type]
            target=target, load=load,
            cpu_seconds=float(found[cpu_key]) / unit,  # type: ignore[arg-type]
            note="headless app (Textual run_test, 120x36)" if app else "",
        ))  # fmt: skip
    return rows


def main(argv: list[str]) -> None:
    sizes = [int(arg) for arg in argv] or list(SIZES)
    for n in sizes:
        print(json.dumps(figures(n, scale_home(n))), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
