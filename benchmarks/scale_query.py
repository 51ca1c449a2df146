"""The query box at 10k / 100k / 1M facts, each profile, with the keyword index and without.

Usage: python benchmarks/scale_query.py [N ...]   (default: 10000 100000 1000000),
or through bench_scale.py, which calls ``measure`` (scale_rows.py).

For each size: a private copy of the cached store (benchmarks/scale_stores.py;
the cached homes are never opened), the keyword index built cold into a
temporary cache (timed), then per profile the median of the query box
(``explain_retrieval``: the profile and ``ranked`` for the missed panel) over
broad and narrow queries, with the index warm and with the scan
(``MEMEXPLORER_KEYWORD_INDEX=off``). At 100k it also checks 200 generated
queries: ``ranked`` gives the same ids with and without the index.
"""

from __future__ import annotations

import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from bench_hierarchical import AGENT, WORDS
from scale_rows import Row
from scale_stores import SIZES, scale_home, store_path

from memexplorer.memory.hierarchical_memory import HierarchicalMemory
from memexplorer.memory.keyword_index import open_index
from memexplorer.memory.retrieval_explain import explain_retrieval

PROFILES = ("library", "amplihack-rs", "ranked")
BROAD = ["checkout refund", "ledger", "Refund window for customer", "zone pod", "the cache"]
NARROW = ["94998", "uses 4242", "xyzzy", "canary 777", "invoice 31337"]


def _box_ms(memory: HierarchicalMemory, profile: str, queries: list[str]) -> float:
    samples = []
    for query in queries:
        start = time.perf_counter()
        explain_retrieval(memory.graph, AGENT, memory.rel_tables(), query, profile=profile)
        samples.append(time.perf_counter() - start)
    return statistics.median(samples) * 1000


def generated_queries(count: int = 200, seed: int = 3) -> list[tuple[str, int]]:
    rng = random.Random(seed)
    pool = [*WORDS, "the", "for", "uses", "What", "Refund?", "Ledger,"]
    out = []
    for _ in range(count):
        words = rng.sample(pool, rng.randint(1, 4))
        if rng.random() < 0.3:
            words.append(str(rng.randrange(100_000)))
        out.append((" ".join(words), rng.choice([5, 10, 20, 50])))
    return out


def same_ids(memory: HierarchicalMemory, queries: list[tuple[str, int]]) -> tuple[int, int]:
    """(queries giving the same ranked ids with and without the index, queries)."""
    same = 0
    for query, nodes in queries:
        answers = []
        for switch in ("on", "off"):
            os.environ["MEMEXPLORER_KEYWORD_INDEX"] = switch
            sub = memory.retrieve_subgraph(query, max_nodes=nodes, profile="ranked")
            answers.append([n.node_id for n in sub.nodes])
        same += answers[0] == answers[1]
    os.environ["MEMEXPLORER_KEYWORD_INDEX"] = "on"
    return same, len(queries)


def bench(n: int, work: Path, folder: Path | None = None) -> dict[str, object]:
    """Every figure at ``n`` facts; ``folder`` is scale_home(n) (the cached home, only copied)."""
    copy = work / f"store-{n}" / "kuzu_db"
    copy.parent.mkdir(parents=True)
    shutil.copy2(store_path((folder or scale_home(n)) / "home"), copy)
    os.environ["MEMEXPLORER_INDEX_CACHE"] = str(work / f"index-{n}")
    os.environ["MEMEXPLORER_KEYWORD_INDEX"] = "on"
    result: dict[str, object] = {"facts": n}
    with HierarchicalMemory(AGENT, copy, mode="read") as memory:
        start = time.perf_counter()
        open_index(memory.graph, AGENT)
        result["build_s"] = time.perf_counter() - start
        index_files = (work / f"index-{n}").glob("*.sqlite")
        result["index MB"] = f"{sum(f.stat().st_size for f in index_files) / 1e6:.0f}"
        for profile in PROFILES:
            for kind, queries in (("broad", BROAD), ("narrow", NARROW)):
                os.environ["MEMEXPLORER_KEYWORD_INDEX"] = "on"
                result[f"{profile} {kind} index"] = _box_ms(memory, profile, queries)
                os.environ["MEMEXPLORER_KEYWORD_INDEX"] = "off"
                result[f"{profile} {kind} scan"] = _box_ms(memory, profile, queries)
        os.environ["MEMEXPLORER_KEYWORD_INDEX"] = "on"
        if n == 100_000:
            result["same ids"] = "{}/{}".format(*same_ids(memory, generated_queries()))
    shutil.rmtree(copy.parent)
    return result


def measure(n: int, folder: Path) -> list[Row]:
    """bench_scale.py's interface (scale_rows.py): the figures above as its rows.

    The settings it changes are put back, so the harness's other modules run
    as memexplorer does by default."""
    names = ("MEMEXPLORER_KEYWORD_INDEX_MIN", "MEMEXPLORER_KEYWORD_INDEX")
    names += ("MEMEXPLORER_INDEX_CACHE",)
    before = {name: os.environ.get(name) for name in names}
    os.environ["MEMEXPLORER_KEYWORD_INDEX_MIN"] = "0"
    load = os.getloadavg()[0]
    try:
        with tempfile.TemporaryDirectory(prefix="scale-query-") as work:
            result = bench(n, Path(work), folder)
    finally:
        for name, value in before.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
    rows = [
        Row("keyword index, cold build", n, "memexplorer", float(result["build_s"]),  # type: ignore[arg-type]
            note=f"{result['index MB']} MB in memexplorer's cache", load=load),
    ]  # fmt: skip
    for profile in PROFILES:
        for kind in ("broad", "narrow"):
            for way, target in (("index", "< 300 ms at 1M"), ("scan", "")):
                value = result[f"{profile} {kind} {way}"]
                rows.append(
                    Row(f"query box, {profile}, {kind} ({way}, median)", n, "memexplorer",
                        float(value) / 1000, target=target, load=load)  # type: ignore[arg-type]
                )  # fmt: skip
    return rows


def main(argv: list[str]) -> None:
    os.environ["MEMEXPLORER_KEYWORD_INDEX_MIN"] = "0"
    print(f"load average {os.getloadavg()[0]:.1f} at start")
    with tempfile.TemporaryDirectory(prefix="scale-query-") as work:
        for n in [int(a) for a in argv] or SIZES:
            result = bench(n, Path(work))
            print(f"{n} facts: index built cold in {result.pop('build_s'):.1f} s")
            for key, value in result.items():
                shown = f"{value:.0f} ms" if isinstance(value, float) else value
                print(f"  {key}: {shown}")
            print(f"  load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main(sys.argv[1:])
