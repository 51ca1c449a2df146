"""The console's query in a process of its own: what it costs and how fast a stop is.

Measures, on a store of the reference kind: a query answered by a child started
ahead of time (as the console does while the operator types), by a child started
on demand, and in the app's own process; then how long `stop()` takes to end
`UNWIND range(1, 2000000000)` and how much memory the app's process gained.

    python benchmarks/bench_console.py STORE [RUNS]
"""

from __future__ import annotations

import contextlib
import json
import os
import statistics
import sys
import threading
import time

from memexplorer.operator.browse import open_browser
from memexplorer.operator.console import run_console_query
from memexplorer.operator.console_run import ConsoleStopped, QueryProcess

QUERY = "MATCH (n:SemanticMemory) RETURN n.memory_id, n.concept ORDER BY n.memory_id LIMIT 100"


def _rss_mb() -> float:
    with open(f"/proc/{os.getpid()}/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 1e6


def _ms(started: float) -> float:
    return (time.perf_counter() - started) * 1000


def main(store: str, runs: int = 7) -> None:
    browser = open_browser(store)
    ready_ms, cold_ms, inside_ms = [], [], []
    for _ in range(runs):
        ready = QueryProcess(browser)
        time.sleep(1.0)  # the operator types meanwhile
        started = time.perf_counter()
        run_console_query(browser, QUERY, process=ready)
        ready_ms.append(_ms(started))
        started = time.perf_counter()
        run_console_query(browser, QUERY)
        cold_ms.append(_ms(started))
        started = time.perf_counter()
        browser.graph.rows_capped(QUERY, 1000, timeout_ms=30_000)
        inside_ms.append(_ms(started))
    before = _rss_mb()
    process = QueryProcess(browser)
    runner = threading.Thread(target=lambda: _swallow(browser, process), daemon=True)
    runner.start()
    time.sleep(1.0)
    started = time.perf_counter()
    process.stop()
    runner.join(10)
    stop_ms = _ms(started)
    browser.close()
    print(
        json.dumps(
            {
                "ready_child_ms": round(statistics.median(ready_ms), 1),
                "cold_child_ms": round(statistics.median(cold_ms), 1),
                "in_process_ms": round(statistics.median(inside_ms), 1),
                "runaway_stop_ms": round(stop_ms, 1),
                "app_rss_gain_mb": round(_rss_mb() - before, 1),
            }
        )
    )


def _swallow(browser, process) -> None:  # type: ignore[no-untyped-def]
    with contextlib.suppress(ConsoleStopped):
        run_console_query(browser, "UNWIND range(1, 2000000000) AS x RETURN x", process=process)


if __name__ == "__main__":
    main(sys.argv[1], *(int(a) for a in sys.argv[2:3]))
