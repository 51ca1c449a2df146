"""Measure the app with the Pilot on a store of N facts (headless, 120x36).

Usage: python benchmarks/bench_app.py [N]   (default 100000)

Builds the store (bench_hierarchical.make_export through import_from_json) once
under /tmp, then starts a fresh process that opens the app on it and times:
process start to the agents listed; opening SemanticMemory to its first rows;
the last page; a sort; a filter. Peak memory is the child's max RSS.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

from bench_hierarchical import AGENT, make_export

from memexplorer.memory.hierarchical_memory import HierarchicalMemory

CHILD = r"""
import asyncio, json, resource, sys, time
started = float(sys.argv[2])
from textual.widgets import Input
from memexplorer.app.explorer_app import create_app
from memexplorer.app.widgets.node_table import NodeTable
from memexplorer.app.widgets.stores_tree import AgentItem, StoresTree

async def until(pilot, ready, limit=60.0):
    deadline = time.perf_counter() + limit
    while not ready():
        if time.perf_counter() > deadline:
            raise SystemExit("the app never got there: " + repr(out))
        await pilot.pause(0.005)

out = {}

async def main():
    app = create_app(sys.argv[1])
    async with app.run_test(size=(120, 36)) as pilot:
        tree = app.screen.query_one(StoresTree)
        await until(pilot, lambda: any(isinstance(n.data, AgentItem)
                                       for s in tree.root.children for n in s.children))
        out["start_to_agents_s"] = time.time() - started
        await pilot.press("down", "enter")
        await until(pilot, lambda: len(tree.cursor_node.children) > 1)
        table = app.screen.query_one(NodeTable)

        async def timed(label, action, check=lambda page: True):
            # From the command (what a key runs) to the screen painted with the
            # new page: an event set after the next refresh, no polling, no
            # Pilot key handling in the figure.
            painted = asyncio.Event()
            original = NodeTable.on_node_table_page_loaded

            async def loaded(self, message):
                await original(self, message)
                self.call_after_refresh(painted.set)

            NodeTable.on_node_table_page_loaded = loaded
            start = time.perf_counter()
            try:
                action()
                await asyncio.wait_for(painted.wait(), 60)
            finally:
                NodeTable.on_node_table_page_loaded = original
            out[label] = (time.perf_counter() - start) * 1000
            await pilot.pause()
            assert check(table.page), label

        screen = app.screen
        facts = next(c for c in tree.cursor_node.children
                     if c.data.table.name == "SemanticMemory")
        await timed("first_rows_ms", lambda: tree.select_node(facts))
        await timed("last_page_ms", screen.action_last_page, lambda p: p.query.offset > 0)
        await timed("first_page_ms", screen.action_first_page, lambda p: p.query.offset == 0)
        await pilot.press("right")
        await timed("sort_ms", screen.action_sort, lambda p: p.query.sort == "concept")
        await timed("sort_reverse_ms", screen.action_sort, lambda p: p.query.descending)
        await pilot.press("slash", *"rollback canary")
        box = screen.query_one("#filter")
        submitted = Input.Submitted(box, box.value)
        await timed("filter_ms", lambda: box.post_message(submitted), lambda p: bool(p.query.text))
        out["filter_rows"] = table.page.total
        out["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps(out))

asyncio.run(main())
"""


def build(n: int) -> Path:
    store = Path(f"/tmp/memexplorer-bench-app-{n}/store")
    if not store.exists():
        store.parent.mkdir(parents=True, exist_ok=True)
        with HierarchicalMemory(AGENT, store) as memory:
            memory.import_from_json(make_export(n))
    return store


def main(argv: list[str]) -> None:
    n = int(argv[0]) if argv else 100_000
    store = build(n)
    runs = []
    for _ in range(3):
        started = time.time()
        child = subprocess.run(
            [sys.executable, "-c", CHILD, str(store), repr(started)],
            capture_output=True, text=True, check=True,
        )  # fmt: skip
        runs.append(json.loads(child.stdout.strip().splitlines()[-1]))
    median = {key: round(statistics.median(run[key] for run in runs), 3) for key in runs[0]}
    print(json.dumps({"facts": n, "runs": len(runs), "median": median, "all": runs}))


if __name__ == "__main__":
    main(sys.argv[1:])
