"""A console query on a read-only graph store runs in its own process: escape ends
it at once, whatever the database is doing, and a memory ceiling ends it too.

`UNWIND range(1, 2000000000)` builds its whole list before kuzu looks for an
interrupt: in process, an interrupt waited for it while the app grew past 8 GB.
"""

from __future__ import annotations

import os
import threading
import time
from contextlib import contextmanager

import pytest

from memexplorer.operator.browse import open_browser
from memexplorer.operator.console import run_console_query
from memexplorer.operator.console_run import ConsoleStopped, QueryProcess
from memexplorer.storage.graph_store import QueryError

OPS = "home/.amplihack/hierarchical_memory/ops-agent/kuzu_db"
RUNAWAY = "UNWIND range(1, 2000000000) AS x RETURN x"


@contextmanager
def _browser(path):
    browser = open_browser(path)
    try:
        yield browser
    finally:
        browser.close()


def _rss_mb() -> float:
    with open(f"/proc/{os.getpid()}/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 1e6


def _deadline_wait(condition, seconds: float) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if condition():
            return True
        time.sleep(0.02)
    return condition()


def test_a_query_in_its_own_process_answers_as_in_process(reference_stores):
    with _browser(reference_stores / OPS) as browser:
        query = "MATCH (n:SemanticMemory) RETURN n.memory_id ORDER BY n.memory_id LIMIT 5"
        inside = browser.graph.rows_capped(query, 3, timeout_ms=10_000)
        result = run_console_query(browser, query, row_cap=3)
        names, rows, more = inside
        assert result.data.column_names == names
        assert result.data.column(0).to_pylist() == [row[0] for row in rows]
        assert result.truncated is more is True and result.data.num_rows == 3


def test_escape_ends_a_runaway_query_within_a_second(reference_stores):
    before = _rss_mb()
    with _browser(reference_stores / OPS) as browser:
        process = QueryProcess(browser)
        outcome: dict[str, object] = {}

        def run() -> None:
            try:
                run_console_query(browser, RUNAWAY, process=process)
            except ConsoleStopped as exc:
                outcome["stopped"] = exc

        thread = threading.Thread(target=run)
        thread.start()
        assert _deadline_wait(lambda: process._process is not None, 10)
        # Let it build up real memory in the child before stopping it.
        assert _deadline_wait(lambda: process._process.poll() is None, 1)
        time.sleep(0.5)
        started = time.monotonic()
        process.stop()
        thread.join(5)
        took = time.monotonic() - started
        assert not thread.is_alive() and "stopped" in outcome
        assert took < 1.0, took
        assert process._process.poll() is not None  # the child is gone
        # The same store answers the next query at once.
        assert run_console_query(browser, "RETURN 1").data.num_rows == 1
    assert _rss_mb() < before * 1.5 + 50  # the app's own memory never held the list


def test_a_query_past_the_memory_ceiling_is_ended_with_a_clear_error(reference_stores):
    with _browser(reference_stores / OPS) as browser:
        process = QueryProcess(browser, memory_mb=400)
        started = time.monotonic()
        with pytest.raises(QueryError, match="used more than 400 MB"):
            run_console_query(browser, RUNAWAY, process=process)
        assert time.monotonic() - started < 20
