"""Time the neighbourhood of a node with 500 edges: fetched (engine) and drawn (text).

Usage: python benchmarks/bench_graph.py [EDGES]   (default 500)

Builds a Kuzu store under /tmp: fact "hub" with EDGES weighted edges, each neighbour
with three leaves of its own; then times, over 20 runs after one warm-up, the depth-1
and depth-2 neighbourhoods read with the default caps and drawn at 118 columns.
Target: under 300 ms for fetch + draw.
"""

from __future__ import annotations

import json
import shutil
import statistics
import sys
import time
from pathlib import Path

from memexplorer.app.graph_drawing import draw
from memexplorer.operator.browse import open_browser
from memexplorer.operator.neighbourhood import NeighbourhoodReader, View
from memexplorer.storage.graphdb import KuzuStore

ROOT = Path("/tmp/memexplorer-bench-graph")


def make_store(path: Path, edges: int) -> None:
    store = KuzuStore(path, read_only=False)
    store.execute("CREATE NODE TABLE Fact(id STRING, concept STRING, content STRING, "
                  "created_at STRING, PRIMARY KEY(id))")  # fmt: skip
    store.execute("CREATE REL TABLE LINKS(FROM Fact TO Fact, weight DOUBLE)")
    ids = ["hub"] + [f"n{i}" for i in range(edges)]
    ids += [f"leaf-{i}-{j}" for i in range(edges) for j in range(3)]
    store.execute(
        "UNWIND $ids AS i CREATE (:Fact {id: i, concept: 'concept ' + i, "
        "content: 'a fact about ' + i, created_at: '2026-01-01T00:00:00'})",
        {"ids": ids},
    )
    links = [{"a": "hub", "b": f"n{i}", "w": (i * 37 % edges) / edges} for i in range(edges)]
    links += [{"a": f"n{i}", "b": f"leaf-{i}-{j}", "w": j / 3} for i in range(edges)
              for j in range(3)]  # fmt: skip
    store.execute(
        "UNWIND $links AS l MATCH (a:Fact {id: l.a}), (b:Fact {id: l.b}) "
        "CREATE (a)-[:LINKS {weight: l.w}]->(b)",
        {"links": links},
    )
    store.close()


def main() -> None:
    edges = int(sys.argv[1]) if len(sys.argv) > 1 else 500
    shutil.rmtree(ROOT, ignore_errors=True)
    ROOT.mkdir(parents=True)
    make_store(ROOT / "kuzu_db", edges)
    browser = open_browser(ROOT / "kuzu_db")
    reader = NeighbourhoodReader(browser)
    out: dict[str, object] = {"edges": edges}
    for depth in (1, 2):
        fetch, drawing, total = [], [], []
        for run in range(21):
            started = time.perf_counter()
            hood = reader.read("Fact", "hub", View(depth=depth))
            fetched = time.perf_counter()
            text = draw(hood, 118).text
            done = time.perf_counter()
            if run:
                fetch.append(fetched - started)
                drawing.append(done - fetched)
                total.append(done - started)
        centre = hood.nodes[hood.centre]
        assert centre.degree == edges and text
        out[f"depth{depth}"] = {
            "nodes": len(hood.nodes),
            "hidden": centre.hidden,
            "fetch_ms_median": round(statistics.median(fetch) * 1000, 1),
            "draw_ms_median": round(statistics.median(drawing) * 1000, 1),
            "total_ms_median": round(statistics.median(total) * 1000, 1),
            "total_ms_max": round(max(total) * 1000, 1),
        }
    browser.close()
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
