"""Measure the operator actions in the app at scale (headless Pilot, 120x36).

Usage: python benchmarks/bench_operator_app.py [N]   (default 100000)

On bench_app's store of N facts (built once under /tmp; a copy is cleaned, never
the original), a fresh process opens the app and times:
- the clean preview of a filter's whole result (every fact matches "uses"):
  shift+delete to the preview's counts on screen (target: under 2 s at 100k);
- an export of the agent to JSON from the Export modal: ctrl+s to the modal
  closed, with the UI's responsiveness throughout: a 60 Hz timer in the app
  records when it runs, and the largest gap between two runs is the longest the
  screen could not have been redrawn (target: no gap over 100 ms).
"""

from __future__ import annotations

import json
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from bench_app import build

CHILD = r"""
import asyncio, json, sys, time
from textual.widgets import Input
from memexplorer.app.explorer_app import create_app
from memexplorer.app.screens.clean_modal import CleanModal
from memexplorer.app.screens.export_modal import ExportModal
from memexplorer.app.widgets.stores_tree import AgentItem, StoresTree

async def until(pilot, ready, limit=600.0):
    deadline = time.perf_counter() + limit
    while not ready():
        if time.perf_counter() > deadline:
            raise SystemExit("the app never got there")
        await pilot.pause(0.005)

ticks = []
def gaps_between(start, end):
    inside = [t for t in ticks if start <= t <= end]
    return [(b - a) * 1000 for a, b in zip(inside, inside[1:])]

async def main():
    store, output = sys.argv[1], sys.argv[2]
    app = create_app(store)
    out = {}
    async with app.run_test(size=(120, 36)) as pilot:
        app.set_interval(1 / 60, lambda: ticks.append(time.perf_counter()))
        tree = app.screen.query_one(StoresTree)
        await until(pilot, lambda: any(isinstance(n.data, AgentItem)
                                       for s in tree.root.children for n in s.children))
        await pilot.press("down", "enter")
        await until(pilot, lambda: len(tree.cursor_node.children) > 1)
        facts = next(c for c in tree.cursor_node.children
                     if c.data.table.name == "SemanticMemory")
        tree.select_node(facts)
        screen = app.screen
        await pilot.pause(1.0)
        await pilot.press("slash", *"uses", "enter")
        await pilot.pause(1.0)
        start = time.perf_counter()
        await pilot.press("shift+delete")
        await until(pilot, lambda: isinstance(app.screen, CleanModal)
                    and app.screen.preview is not None)
        end = time.perf_counter()
        out["clean_preview_rows"] = app.screen.preview.rows
        out["clean_preview_s"] = end - start
        out["clean_preview_max_gap_ms"] = max(gaps_between(start, end), default=0.0)
        await pilot.press("escape")
        await until(pilot, lambda: app.screen is screen)
        await pilot.press("t")
        await pilot.press("e")
        await until(pilot, lambda: isinstance(app.screen, ExportModal))
        app.screen.query_one("#output", Input).value = output
        await pilot.pause(0.5)
        start = time.perf_counter()
        await pilot.press("ctrl+s")
        await until(pilot, lambda: app.screen is screen)
        end = time.perf_counter()
        gaps = sorted(gaps_between(start, end))
        out["export_s"] = end - start
        out["export_ticks"] = len(gaps) + 1
        out["export_max_gap_ms"] = gaps[-1]
        out["export_p99_gap_ms"] = gaps[int(len(gaps) * 0.99)]
        out["export_gaps_over_100ms"] = sum(1 for g in gaps if g > 100)
    print(json.dumps(out))

asyncio.run(main())
"""


def main(argv: list[str]) -> None:
    n = int(argv[0]) if argv else 100_000
    original = build(n)
    runs = []
    with tempfile.TemporaryDirectory() as folder:
        for run in range(3):
            store = Path(folder) / f"store-{run}"
            shutil.copyfile(original, store)
            output = Path(folder) / f"export-{run}.json"
            child = subprocess.run(
                [sys.executable, "-c", CHILD, str(store), str(output)],
                capture_output=True, text=True, check=True,
            )  # fmt: skip
            runs.append(json.loads(child.stdout.strip().splitlines()[-1]))
    median = {key: round(statistics.median(run[key] for run in runs), 3) for key in runs[0]}
    worst = {key: round(max(run[key] for run in runs), 3) for key in runs[0] if "gap" in key}
    print(json.dumps({"facts": n, "runs": len(runs), "median": median, "worst": worst}))


if __name__ == "__main__":
    main(sys.argv[1:])
