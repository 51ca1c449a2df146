"""The raw console: the operator's query as written, a row cap, a time limit, and
writes refused by the read-only store itself (files unchanged)."""

from __future__ import annotations

import pytest
from store_helpers import checksums

from memexplorer.operator.browse import open_browser
from memexplorer.operator.console import run_console_query
from memexplorer.storage.exceptions import InvalidInputError, ReadOnlyStoreError
from memexplorer.storage.graphdb import QueryError

OPS = "home/.amplihack/hierarchical_memory/ops-agent/kuzu_db"
EXPERIENCES = "home/.amplihack/memory/ops-agent/experiences.db"


@pytest.fixture
def graph(reference_stores):
    browser = open_browser(reference_stores / OPS)
    yield browser
    browser.close()


def test_rows_columns_and_nodes_as_json(graph):
    result = run_console_query(graph, "MATCH (n:SemanticMemory) RETURN n.concept, n LIMIT 3;")
    assert result.data.column_names == ["n.concept", "n"]
    assert result.data.num_rows == 3 and not result.truncated
    assert '"_label": "SemanticMemory"' in result.data.column("n")[0].as_py()
    assert result.describe().startswith("3 rows in ")


def test_row_cap(graph):
    result = run_console_query(graph, "MATCH (n:SemanticMemory) RETURN n.memory_id", row_cap=10)
    assert result.data.num_rows == 10 and result.truncated
    assert "stopped at the cap of 10" in result.describe()


def test_time_limit_stops_a_runaway_query(graph):
    with pytest.raises(QueryError, match=r"ran past 0\.2 s"):
        run_console_query(graph, "MATCH (a)-[*1..12]-(b) RETURN count(*)", timeout_s=0.2)
    assert run_console_query(graph, "RETURN 1 AS one").data.to_pylist() == [{"one": 1}]


def test_writes_are_refused_and_nothing_changes(reference_stores):
    for store, query in (
        (OPS, "MATCH (n:SemanticMemory) SET n.confidence = 0.0"),
        (OPS, "CREATE (:EpisodicMemory {memory_id: 'x'})"),
        (EXPERIENCES, "DELETE FROM experiences"),
    ):
        path = reference_stores / store
        before = checksums(path)
        browser = open_browser(path)
        try:
            with pytest.raises(ReadOnlyStoreError):
                run_console_query(browser, query)
        finally:
            browser.close()
        assert checksums(path) == before


def test_sqlite_console(reference_stores):
    browser = open_browser(reference_stores / EXPERIENCES)
    try:
        result = run_console_query(
            browser, "SELECT experience_type, count(*) AS n FROM experiences GROUP BY 1 ORDER BY 1"
        )
        assert sum(row["n"] for row in result.data.to_pylist()) == 122
        with pytest.raises(QueryError, match="ran past"):
            run_console_query(
                browser,
                "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) "
                "SELECT count(*) FROM c",
                timeout_s=0.2,
            )
        with pytest.raises(QueryError, match="SQLite refused"):
            run_console_query(browser, "SELECT nope FROM nowhere")
    finally:
        browser.close()


def test_bad_input(graph):
    with pytest.raises(InvalidInputError, match="empty"):
        run_console_query(graph, "  ; ")
    with pytest.raises(InvalidInputError):
        run_console_query(graph, "RETURN 1", row_cap=0)
    with pytest.raises(QueryError, match="Kuzu refused"):
        run_console_query(graph, "MATCH (n) RETURN nope(n)")


def _count(path, sql: str, *args) -> int:
    import sqlite3

    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as connection:
        return connection.execute(sql, args).fetchone()[0]


def test_a_sqlite_write_says_the_rows_it_changed(reference_stores):
    """A confirmed write said '0 rows in N ms' (its empty result) after deleting rows."""
    path = reference_stores / EXPERIENCES
    kind = "success"
    expected = _count(path, "SELECT count(*) FROM experiences WHERE experience_type = ?", kind)
    assert expected > 1
    browser = open_browser(path, writable=True)
    try:
        deleted = run_console_query(
            browser, f"DELETE FROM experiences WHERE experience_type = '{kind}'", allow_write=True
        )
        assert deleted.describe().startswith(f"{expected} rows changed in ")
        again = run_console_query(
            browser, f"DELETE FROM experiences WHERE experience_type = '{kind}'", allow_write=True
        )
        assert again.describe().startswith("0 rows changed in ")
        made = run_console_query(browser, "CREATE TABLE scratch (a)", allow_write=True)
        assert made.describe().startswith("0 rows changed in ")
        # RETURNING cut at the cap: the rows it changed, not the rows it showed.
        run_console_query(browser, "INSERT INTO scratch VALUES (1), (2), (3)", allow_write=True)
        returning = run_console_query(
            browser, "DELETE FROM scratch RETURNING a", row_cap=1, allow_write=True
        )
        assert returning.describe().startswith(
            "1 row (stopped at the cap of 1) returned, 3 rows changed in "
        )
    finally:
        browser.close()
    assert _count(path, "SELECT count(*) FROM experiences WHERE experience_type = ?", kind) == 0


def test_a_kuzu_write_says_written_not_a_count(reference_stores):
    """Kuzu gives no count for a write: the line says it was written, not '0 rows'."""
    browser = open_browser(reference_stores / OPS, writable=True)
    try:
        result = run_console_query(
            browser, "MATCH (n:SemanticMemory) SET n.confidence = 0.5", allow_write=True
        )
        text = result.describe()
        assert text.startswith("written in ") and "no count of changed rows" in text
        assert "0 rows" not in text
    finally:
        browser.close()
