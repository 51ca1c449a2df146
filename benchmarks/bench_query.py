"""Time the app's query box with the Pilot on a store of N facts (headless, 120x36).

Usage: python benchmarks/bench_query.py [N]   (default 100000)

Uses bench_app's store (built once under /tmp). A fresh process opens the app on
it, presses q on the agent and, for each query, times enter to the results and
the LLM context painted: retrieve_subgraph, both to_llm_context() texts, the
tree and the text pane. Beside it: the engine's retrieve_subgraph alone, called
in the same process; the same call timed inside the box's worker; and the answer's
handler to the screen painted. Broad queries (two common words) fill max_nodes with
keyword hits; narrow ones (a number in a few facts) also take the neighbour step.
The history goes to a scratch XDG_DATA_HOME, never the user's.
"""

from __future__ import annotations

import json
import os
import random
import statistics
import subprocess
import sys
import tempfile

from bench_app import build
from bench_hierarchical import WORDS

CHILD = r"""
import asyncio, json, sys, time
from memexplorer.app import create_app
from memexplorer.screens.query_screen import QueryScreen
from memexplorer.widgets.stores_tree import AgentItem, StoresTree

async def until(pilot, ready, limit=120.0):
    deadline = time.perf_counter() + limit
    while not ready():
        if time.perf_counter() > deadline:
            raise SystemExit("the app never got there")
        await pilot.pause(0.005)

async def main():
    queries = json.loads(sys.argv[2])
    app = create_app(sys.argv[1])
    out = {"broad": [], "narrow": [], "nodes": [], "engine": [], "paint": [], "worker": []}
    async with app.run_test(size=(120, 36)) as pilot:
        tree = app.screen.query_one(StoresTree)
        await until(pilot, lambda: any(isinstance(n.data, AgentItem)
                                       for s in tree.root.children for n in s.children))
        await pilot.press("down", "q")
        await until(pilot, lambda: isinstance(app.screen, QueryScreen))
        screen = app.screen
        box = screen.query_one("#query")
        memory = app.memories.get(screen.store, screen.agent)
        retrieve = memory.retrieve_subgraph

        def in_worker(*args, **kwargs):
            start = time.perf_counter()
            try:
                return retrieve(*args, **kwargs)
            finally:
                out["worker"].append((time.perf_counter() - start) * 1000)

        memory.retrieve_subgraph = in_worker
        original = QueryScreen.on_query_screen_answered
        for label, text in queries:
            painted = asyncio.Event()

            def answered(self, message, painted=painted):
                handled = time.perf_counter()
                original(self, message)

                def done():
                    now = time.perf_counter()
                    out["paint"].append((now - handled) * 1000)
                    out[label].append((now - start) * 1000)
                    painted.set()

                self.call_after_refresh(done)

            QueryScreen.on_query_screen_answered = answered
            screen.action_focus_query()
            box.value = text
            await pilot.pause()
            start = time.perf_counter()
            try:
                # Stopped when the screen is painted, not when press() returns:
                # the Pilot also waits for the history save that follows.
                await pilot.press("enter")
                await asyncio.wait_for(painted.wait(), 60)
            finally:
                QueryScreen.on_query_screen_answered = original
            out["nodes"].append(len(screen.results.shown_ids()))
            await app.workers.wait_for_complete()
        # The engine alone on the same store, same process, the app idle.
        for label, text in queries:
            start = time.perf_counter()
            retrieve(text)
            out["engine"].append((time.perf_counter() - start) * 1000)
    print(json.dumps(out))

asyncio.run(main())
"""


def main(argv: list[str]) -> None:
    n = int(argv[0]) if argv else 100_000
    store = build(n)
    rng = random.Random(3)
    queries = [("broad", " ".join(rng.sample(WORDS, 2))) for _ in range(10)]
    queries += [("narrow", str(rng.randrange(1000, n))) for _ in range(10)]
    runs = []
    with tempfile.TemporaryDirectory() as data:
        env = {**os.environ, "XDG_DATA_HOME": data}
        for _ in range(3):
            child = subprocess.run(
                [sys.executable, "-c", CHILD, str(store), json.dumps(queries)],
                capture_output=True, text=True, check=True, env=env,
            )  # fmt: skip
            runs.append(json.loads(child.stdout.strip().splitlines()[-1]))
    figures: dict[str, float] = {"facts": n}
    for label in ("broad", "narrow"):
        # The first query of a process warms kuzu's caches; it is reported apart.
        first = [run[label][0] for run in runs]
        rest = sorted(ms for run in runs for ms in run[label][1:])
        figures[f"{label}_first_ms"] = round(statistics.median(first), 1)
        figures[f"{label}_median_ms"] = round(statistics.median(rest), 1)
        figures[f"{label}_max_ms"] = round(rest[-1], 1)
    for label in ("engine", "worker", "paint"):
        figures[f"{label}_median_ms"] = round(
            statistics.median(ms for run in runs for ms in run[label]), 1
        )
    figures["nodes_median"] = statistics.median(x for run in runs for x in run["nodes"])
    print(json.dumps({"runs": len(runs), "queries_per_run": len(queries), **figures}))


if __name__ == "__main__":
    main(sys.argv[1:])
