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
