"""A whole store as one comparable structure: every row and edge with every property."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from memexplorer.operator.graph_rows import dump_graph
from memexplorer.operator.sqlite_rows import dump_sqlite
from memexplorer.storage.graphdb import KuzuStore
from memexplorer.storage.stores import sniff


def dump_store(path: Path) -> dict[str, Any]:
    """Table name -> sorted JSON of every row (edges with their endpoints' keys).

    SQLite rows keep their rowid; FTS shadow tables are left out (their bytes
    depend on how the index was built) and checked by searching instead.
    """
    if sniff(path).engine == "sqlite":
        db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
        try:
            tables = dump_sqlite(db)
        finally:
            db.close()
    else:
        with KuzuStore(path) as graph:
            tables = dump_graph(graph)
    return {
        t.name: {
            "columns": t.columns,
            "rows": sorted(json.dumps(row, sort_keys=True) for row in t.rows),
        }
        for t in tables
    }


def row_count(dump: dict[str, Any]) -> int:
    return sum(len(table["rows"]) for table in dump.values())
