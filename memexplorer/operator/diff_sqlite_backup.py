"""An amplihack-rs SQLite store as it was before a clean or a redaction: the store
now with the backup's saved rows put back, in a private in-memory copy.

The store is copied into memory through SQLite's backup API from a read-only
connection, the saved rows are written into the copy (replacing rows of the same
key, inserting the rest), and the Rust exporter's own reading
(:func:`~.rs_sqlite_read.agent_graph`) turns the copy into an export. The store's
file is only read.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from memexplorer.memory.rs_sqlite_read import agent_graph
from memexplorer.operator.saved_rows import SavedTable
from memexplorer.operator.sqlite_rows import replace_rows
from memexplorer.storage.sqlite_db import open_sqlite_in_memory
from memexplorer.storage.sqlite_readonly import open_sqlite_readonly

__all__ = ["rs_store_as_it_was"]


def rs_store_as_it_was(store: Path, tables: list[SavedTable], agent: str) -> dict[str, Any]:
    """The agent's export of ``store`` with ``tables`` (a backup's rows) put back."""
    source = open_sqlite_readonly(store)
    copy = open_sqlite_in_memory()
    try:
        source.backup(copy)
        source.close()
        for saved in tables:
            replace_rows(copy, saved)
        return agent_graph(copy, agent)
    finally:
        source.close()
        copy.close()
