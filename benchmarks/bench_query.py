"""Time the query box per retrieval profile on a store of N facts, and the library itself.

Usage: python benchmarks/bench_query.py [N]   (default 100000)
       LIBRARY_PYTHON=/tmp/libvenv-kuzu/bin/python LIBRARY_SRC=/tmp/lib-4ae0813/src \
       python benchmarks/bench_query.py       (adds amplihack-memory-lib itself)

Uses bench_app's store (built once under /tmp). For each profile (library,
amplihack-rs, ranked) a fresh process opens the app on it, switches the query
box to the profile and, for each query, times enter to the results, the missed
panel and the LLM context painted. Beside it, in one run: each profile's
retrieve_subgraph alone and with the missed-facts explanation (what the box's
worker computes), one raw keyword query (the library's own keyword Cypher, once),
and, when LIBRARY_PYTHON is set, amplihack-memory-lib's retrieve_subgraph in its
own virtualenv on a copy of the store (it opens stores read-write). Broad queries
are two common words, narrow ones a number in a few facts. The history and the
remembered profile go to a scratch XDG_DATA_HOME, never the user's.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_app import build
from bench_hierarchical import AGENT, WORDS

from memexplorer.memory.hierarchical_memory import HierarchicalMemory
from memexplorer.memory.library_queries import KEYWORD_QUERY
from memexplorer.memory.retrieval_explain import explain_retrieval
from memexplorer.memory.retrieval_profiles import PROFILES

BOX = r"""
import asyncio, json, sys, time
from memexplorer.app.explorer_app import create_app
from memexplorer.app.screens.query_screen import QueryScreen
from memexplorer.app.widgets.stores_tree import AgentItem, StoresTree

async def until(pilot, ready, limit=120.0):
    deadline = time.perf_counter() + limit
    while not ready():
        if time.perf_counter() > deadline:
            raise SystemExit("the app never got there")
        await pilot.pause(0.005)

async def main():
    profile, queries = sys.argv[2], json.loads(sys.argv[3])
    app = create_app(sys.argv[1])
    out = {"broad": [], "narrow": []}
    async with app.run_test(size=(120, 36)) as pilot:
        tree = app.screen.query_one(StoresTree)
        await until(pilot, lambda: any(isinstance(n.data, AgentItem)
                                       for s in tree.root.children for n in s.children))
        await pilot.press("down", "q")
        await until(pilot, lambda: isinstance(app.screen, QueryScreen))
        screen = app.screen
        screen.results.focus()
        while screen.profile != profile:
            await pilot.press("p")
            await app.workers.wait_for_complete()
        box = screen.query_one("#query")
        original = QueryScreen.on_query_screen_answered
        for label, text in queries:
            painted = asyncio.Event()

            def answered(self, message, painted=painted):
                original(self, message)
                def done():
                    out[label].append((time.perf_counter() - start) * 1000)
                    painted.set()
                self.call_after_refresh(done)

            QueryScreen.on_query_screen_answered = answered
            screen.action_focus_query()
            box.value = text
            await pilot.pause()
            start = time.perf_counter()
            try:
                await pilot.press("enter")
                await asyncio.wait_for(painted.wait(), 60)
            finally:
                QueryScreen.on_query_screen_answered = original
            await app.workers.wait_for_complete()
    print(json.dumps(out))

asyncio.run(main())
"""

LIBRARY = r"""
import json, sys, time
from amplihack_memory.hierarchical_memory import HierarchicalMemory
memory = HierarchicalMemory(sys.argv[2], sys.argv[1])
out = []
for _, text in json.loads(sys.argv[3]):
    start = time.perf_counter()
    memory.retrieve_subgraph(text)
    out.append((time.perf_counter() - start) * 1000)
print(json.dumps(out))
"""


def median(values: list[float]) -> float:
    return round(statistics.median(values), 1)


def engine_figures(store: Path, queries: list[tuple[str, str]]) -> dict[str, float]:
    """Each profile alone and with the explanation, and one raw keyword query."""
    figures: dict[str, float] = {}
    with HierarchicalMemory(AGENT, store, mode="read") as memory:
        memory.retrieve_subgraph(queries[0][1])  # the first query warms the caches
        for profile in PROFILES:
            alone, explained = [], []
            for _, text in queries:
                start = time.perf_counter()
                memory.retrieve_subgraph(text, profile=profile)
                alone.append((time.perf_counter() - start) * 1000)
                start = time.perf_counter()
                explanation = explain_retrieval(
                    memory.graph, AGENT, memory.rel_tables(), text, profile=profile
                )
                explanation.missed_as_dicts()
                explained.append((time.perf_counter() - start) * 1000)
            figures[f"engine_{profile}_ms"] = median(alone)
            figures[f"engine_{profile}_with_missed_ms"] = median(explained)
        raw = []
        for _, text in queries:
            params = {"agent_id": AGENT, "keyword": text.lower().split()[0], "limit": 60}
            start = time.perf_counter()
            memory.graph.rows(KEYWORD_QUERY, params)
            raw.append((time.perf_counter() - start) * 1000)
        figures["one_raw_keyword_query_ms"] = median(raw)
    return figures


def library_figures(store: Path, queries: list[tuple[str, str]]) -> dict[str, float]:
    """amplihack-memory-lib itself, in its own virtualenv, on a copy of the store."""
    python, source = os.environ.get("LIBRARY_PYTHON"), os.environ.get("LIBRARY_SRC")
    if not python or not source:
        return {}
    with tempfile.TemporaryDirectory() as scratch:
        copy = Path(scratch) / "store"
        shutil.copy2(store, copy)
        env = {**os.environ, "PYTHONPATH": source}
        child = subprocess.run(
            [python, "-c", LIBRARY, str(copy), AGENT, json.dumps(queries)],
            capture_output=True, text=True, check=True, env=env,
        )  # fmt: skip
    times = json.loads(child.stdout.strip().splitlines()[-1])
    return {
        "amplihack_memory_lib_ms": median(times[1:]),
        "amplihack_memory_lib_first_ms": round(times[0], 1),
    }


def box_figures(store: Path, queries: list[tuple[str, str]]) -> dict[str, float]:
    figures: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as data:
        env = {**os.environ, "XDG_DATA_HOME": data}
        for profile in PROFILES:
            child = subprocess.run(
                [sys.executable, "-c", BOX, str(store), profile, json.dumps(queries)],
                capture_output=True, text=True, check=True, env=env,
            )  # fmt: skip
            run = json.loads(child.stdout.strip().splitlines()[-1])
            both = run["broad"][1:] + run["narrow"]  # the process's first query warms caches
            figures[f"box_{profile}_median_ms"] = median(both)
            figures[f"box_{profile}_max_ms"] = round(max(both), 1)
    return figures


def main(argv: list[str]) -> None:
    n = int(argv[0]) if argv else 100_000
    store = build(n)
    rng = random.Random(3)
    queries = [("broad", " ".join(rng.sample(WORDS, 2))) for _ in range(10)]
    queries += [("narrow", str(rng.randrange(1000, n))) for _ in range(10)]
    figures: dict[str, float] = {"facts": n, "queries": len(queries)}
    figures.update(engine_figures(store, queries))
    figures.update(library_figures(store, queries))
    figures.update(box_figures(store, queries))
    print(json.dumps(figures))


if __name__ == "__main__":
    main(sys.argv[1:])
