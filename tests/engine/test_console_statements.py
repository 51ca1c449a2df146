"""The console's write detection: only provable reads run without a confirm."""

from __future__ import annotations

import pytest

from memexplorer.operator.console import statement_writes

READS = [
    ("MATCH (n:SemanticMemory) RETURN n.concept LIMIT 5", "kuzu"),
    ("MATCH (n) WHERE n.content = 'DELETE me; SET x' RETURN n", "kuzu"),
    ("// a comment: CREATE\nMATCH (n) RETURN count(n);", "kuzu"),
    ("CALL show_tables() RETURN *", "kuzu"),
    ("SELECT name FROM sqlite_master WHERE type = 'table'", "sqlite"),
    ("select * from t -- delete from t", "sqlite"),
]
WRITES = [
    ("MATCH (a)--(b) DELETE a", "kuzu"),  # `--` is an edge in Cypher, not a comment
    ("MATCH (n) SET n.x = 1", "kuzu"),
    ("CREATE (n:Fact {id: 'x'})", "kuzu"),
    ("MATCH (n) RETURN n; MATCH (m) DETACH DELETE m", "kuzu"),
    ("CALL checkpoint()", "kuzu"),
    ("COPY Fact FROM 'x.csv'", "kuzu"),
    ("SELECT 1; DROP TABLE t", "sqlite"),
    ("WITH x AS (SELECT 1) DELETE FROM t", "sqlite"),
    ("PRAGMA journal_mode = DELETE", "sqlite"),
    ("UPDATE t SET a = 1", "sqlite"),
    ("something unknown", "kuzu"),
]


@pytest.mark.parametrize(("text", "engine"), READS)
def test_reads(text, engine):
    assert not statement_writes(text, engine)


@pytest.mark.parametrize(("text", "engine"), WRITES)
def test_writes(text, engine):
    assert statement_writes(text, engine)
