"""The raw query console: an operator's own Cypher (or SQL, for SQLite stores)
against one store, with a row cap and a time limit.

The operator's text runs as written; it is the one place a query is not the
engine's own. Safety comes from the store, not from parsing the text: the store
is open read-only, so kuzu (and SQLite) refuse every write, and the error says
how to ask for writing.
"""

from __future__ import annotations

import json
import sqlite3
import time
from dataclasses import dataclass
from typing import Any

import pyarrow as pa

from .browse import GraphBrowser, SqliteBrowser, StoreBrowser
from .exceptions import InvalidInputError, ReadOnlyStoreError
from .graphdb import QueryError

__all__ = ["DEFAULT_ROW_CAP", "DEFAULT_TIMEOUT_S", "ConsoleResult", "run_console_query"]

DEFAULT_ROW_CAP = 1_000
DEFAULT_TIMEOUT_S = 30.0


@dataclass(frozen=True)
class ConsoleResult:
    text: str
    data: pa.Table
    truncated: bool
    seconds: float

    def describe(self) -> str:
        rows = f"{self.data.num_rows:,} row{'s' if self.data.num_rows != 1 else ''}"
        capped = f" (stopped at the cap of {self.data.num_rows:,})" if self.truncated else ""
        return f"{rows}{capped} in {self.seconds * 1000:.0f} ms"


def _json(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, default=str)


def _table(names: list[str], rows: list[list[Any]]) -> pa.Table:
    """Rows as Arrow; values Arrow cannot type together (mixed or nested) as text."""
    columns = {}
    for index, name in enumerate(dict.fromkeys(names)):
        values = [row[index] for row in rows]
        try:
            array = pa.array(values)
        except (pa.ArrowInvalid, pa.ArrowTypeError):
            array = None
        if array is None or pa.types.is_nested(array.type):
            # Nodes, rels, lists and maps: shown as JSON text in the table.
            array = pa.array([None if v is None else _json(v) for v in values], pa.string())
        columns[name] = array
    return pa.table(columns)


def run_console_query(
    browser: StoreBrowser,
    text: str,
    *,
    row_cap: int = DEFAULT_ROW_CAP,
    timeout_s: float = DEFAULT_TIMEOUT_S,
) -> ConsoleResult:
    """Run the operator's query; keep at most ``row_cap`` rows; stop after ``timeout_s``."""
    text = text.strip().rstrip(";").strip()
    if not text:
        raise InvalidInputError("The query is empty", hint="Type a query, then run it.")
    if row_cap <= 0 or timeout_s <= 0:
        raise InvalidInputError(f"row cap and time limit must be positive ({row_cap}, {timeout_s})")
    start = time.perf_counter()
    if isinstance(browser, GraphBrowser):
        try:
            names, rows, truncated = browser.graph.rows_capped(
                text, row_cap, timeout_ms=int(timeout_s * 1000)
            )
        except QueryError as exc:
            if "cancelled" in exc.message and time.perf_counter() - start >= timeout_s:
                raise QueryError(f"The query ran past {timeout_s:g} s and was stopped.") from None
            raise
    elif isinstance(browser, SqliteBrowser):
        names, rows, truncated = _sqlite_rows(browser, text, row_cap, timeout_s)
    else:
        raise InvalidInputError(f"The console cannot query {browser.path}")
    return ConsoleResult(text, _table(names, rows), truncated, time.perf_counter() - start)


def _sqlite_rows(
    browser: SqliteBrowser, text: str, cap: int, timeout_s: float
) -> tuple[list[str], list[list[Any]], bool]:
    connection = browser.connection
    deadline = time.monotonic() + timeout_s
    # SQLite calls this every N virtual-machine steps; a non-zero return aborts.
    connection.set_progress_handler(lambda: int(time.monotonic() > deadline), 10_000)
    try:
        cursor = connection.execute(text)
        names = [d[0] for d in cursor.description or ()]
        rows = [list(row) for row in cursor.fetchmany(cap + 1)]
    except sqlite3.OperationalError as exc:
        message = str(exc)
        if "readonly" in message or "read-only" in message:
            raise ReadOnlyStoreError(browser.path, "This store is open read-only") from None
        if "interrupted" in message:
            raise QueryError(f"The query ran past {timeout_s:g} s and was stopped.") from None
        raise QueryError(f"SQLite refused the query: {message}") from None
    except sqlite3.DatabaseError as exc:
        raise QueryError(f"SQLite refused the query: {exc}") from None
    finally:
        connection.set_progress_handler(None, 0)
    return names, rows[:cap], len(rows) > cap
