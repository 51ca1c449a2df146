"""SQLite's IN lists in chunks: counts over more values than one statement takes."""

from __future__ import annotations

import sqlite3

from memexplorer.operator.sqlite_in import CHUNK, chunks, count_in, marks


def test_chunks_split_at_the_limit_and_keep_every_value():
    values = list(range(2 * CHUNK + 5))
    parts = list(chunks(values))
    assert [len(part) for part in parts] == [CHUNK, CHUNK, 5]
    assert [v for part in parts for v in part] == values
    assert list(chunks([])) == []


def test_marks_has_one_parameter_per_value():
    assert marks(["a", "b", "c"]) == "?, ?, ?"


def test_count_in_counts_across_chunks():
    connection = sqlite3.connect(":memory:")
    connection.execute("CREATE TABLE sessions (session_id TEXT, n INTEGER)")
    # Sessions s0..s999, and s7 twice: 1,001 rows.
    rows = [(f"s{i}", i) for i in range(1000)] + [("s7", 0)]
    connection.executemany("INSERT INTO sessions VALUES (?, ?)", rows)
    # Every even session up to s998 (500 names, two chunks and more), s7 and two
    # names that are not there: 500 + 2 rows of s7 = 502.
    wanted = [f"s{i}" for i in range(0, 1000, 2)] + ["s7", "x1", "x2"]
    assert len(wanted) > CHUNK  # more than one statement
    assert count_in(connection, "sessions", "session_id", wanted) == 502
    assert count_in(connection, "sessions", "session_id", []) == 0
