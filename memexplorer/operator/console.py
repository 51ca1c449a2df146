"""The raw query console: an operator's own Cypher (or SQL, for SQLite stores)
against one store, with a row cap and a time limit.

The operator's text runs as written; it is the one place a query is not the
engine's own. Safety comes from the store first: while it is open read-only,
kuzu (and SQLite) refuse every write. A store in writing mode is guarded by
:func:`statement_writes`, a conservative reading of the text: anything it cannot
prove read-only counts as a write, which :func:`run_console_query` runs only
when the caller says the operator confirmed it (``allow_write``).
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass, replace
from typing import Any

import pyarrow as pa

from memexplorer.operator.browse import GraphBrowser, SqliteBrowser, StoreBrowser
from memexplorer.operator.console_run import QueryProcess, runs_in_a_process
from memexplorer.operator.wording import counted
from memexplorer.operator.write_gate import write_gate
from memexplorer.storage.exceptions import InvalidInputError, ReadOnlyStoreError
from memexplorer.storage.graphdb import QueryError
from memexplorer.storage.sqlite_db import SqliteDatabaseError, SqliteStatementError

__all__ = [
    "DEFAULT_ROW_CAP",
    "DEFAULT_TIMEOUT_S",
    "ConsoleResult",
    "WriteNotConfirmedError",
    "run_console_query",
    "statement_writes",
]

DEFAULT_ROW_CAP = 1_000
DEFAULT_TIMEOUT_S = 30.0

#: Statements that only read, by their first word; anything else counts as a write.
_READING_STARTS = {
    "kuzu": {"MATCH", "OPTIONAL", "RETURN", "WITH", "UNWIND", "CALL", "EXPLAIN", "PROFILE"},
    "sqlite": {"SELECT", "WITH", "EXPLAIN", "VALUES"},
}
#: Words that change a store (or its files, or the session) anywhere in a statement.
_WRITING_WORDS = {
    "kuzu": {"CREATE", "MERGE", "SET", "DELETE", "DETACH", "REMOVE", "DROP", "ALTER", "COPY",
             "LOAD", "INSTALL", "ATTACH", "USE", "IMPORT", "EXPORT", "CHECKPOINT", "BEGIN",
             "COMMIT", "ROLLBACK", "TRANSACTION"},
    "sqlite": {"INSERT", "UPDATE", "DELETE", "REPLACE", "CREATE", "DROP", "ALTER", "ATTACH",
               "DETACH", "VACUUM", "REINDEX", "ANALYZE", "PRAGMA", "BEGIN", "COMMIT",
               "ROLLBACK", "SAVEPOINT", "RELEASE", "UPSERT"},
}  # fmt: skip
#: Kuzu's CALL functions that only read the catalog or settings.
_READING_CALLS = {"SHOW_TABLES", "TABLE_INFO", "SHOW_CONNECTION", "DB_VERSION",
                  "CURRENT_SETTING", "SHOW_FUNCTIONS", "SHOW_INDEXES", "SHOW_WARNINGS",
                  "SHOW_SEQUENCES", "SHOW_MACROS", "SHOW_ATTACHED_DATABASES"}  # fmt: skip
#: String literals, quoted names and comments (per dialect): blanked before reading.
_STRINGS = r"'(?:[^'\\]|\\.|'')*'|\"(?:[^\"\\]|\\.)*\"|`[^`]*`|/\*.*?\*/"
_QUOTED = {
    "kuzu": re.compile(_STRINGS + r"|//[^\n]*", re.DOTALL),
    "sqlite": re.compile(_STRINGS + r"|--[^\n]*|\[[^\]]*\]", re.DOTALL),
}
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class WriteNotConfirmedError(ReadOnlyStoreError):
    title = "Write not confirmed"
    hint = "Switch the store to writing mode and confirm the statement to run it."


def statement_writes(text: str, engine: str) -> bool:
    """Whether the statement may change the store: True unless it is provably a read.

    Conservative on purpose: several statements, an unknown first word, a write
    keyword anywhere outside quotes, or a CALL of a function not known to only
    read all count as writes.
    """
    dialect = "sqlite" if engine == "sqlite" else "kuzu"
    bare = _QUOTED[dialect].sub(" ", text.strip().rstrip(";").strip()).strip().rstrip(";")
    if ";" in bare:
        return True
    words = [w.upper() for w in _WORD.findall(bare)]
    if not words or words[0] not in _READING_STARTS[dialect]:
        return True
    if any(word in _WRITING_WORDS[dialect] for word in words):
        return True
    calls = [words[i + 1] for i, word in enumerate(words[:-1]) if word == "CALL"]
    return any(call not in _READING_CALLS for call in calls) or (words[-1] == "CALL")


@dataclass(frozen=True)
class ConsoleResult:
    text: str
    data: pa.Table
    truncated: bool
    seconds: float
    #: Whether the statement ran as a write (confirmed; it may have changed the store).
    wrote: bool = False
    #: Rows the write changed, where the engine counts them (SQLite); None where it
    #: does not (Kuzu and LadybugDB give no count for a write).
    changed: int | None = None

    def describe(self) -> str:
        """What ran, in words that are true: a write's changed rows, never its
        (usually empty) result as if it were the change."""
        took = f"in {self.seconds * 1000:.0f} ms"
        rows = counted(self.data.num_rows, "row")
        capped = f" (stopped at the cap of {self.data.num_rows:,})" if self.truncated else ""
        if not self.wrote:
            return f"{rows}{capped} {took}"
        returned = f"{rows}{capped} returned, " if self.data.num_columns else ""
        if self.changed is None:
            return f"{returned}written {took} (the engine gives no count of changed rows)"
        return f"{returned}{counted(self.changed, 'row')} changed {took}"


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
    allow_write: bool = False,
    process: QueryProcess | None = None,
) -> ConsoleResult:
    """Run the operator's query; keep at most ``row_cap`` rows; stop after ``timeout_s``.

    A statement :func:`statement_writes` counts as a write runs only with
    ``allow_write`` (the operator confirmed it, after a backup), and inside the
    store's write gate (StoreBusyError while another memexplorer process writes
    it, WritesDisabledError under MEMEXPLORER_READ_ONLY=1). On a graph store
    open read-only the query runs in a child process (``process``, made here when
    not given; its ``stop()`` ends the query at once, from any thread)."""
    text = text.strip().rstrip(";").strip()
    if not text:
        raise InvalidInputError("The query is empty", hint="Type a query, then run it.")
    engine = "sqlite" if isinstance(browser, SqliteBrowser) else "kuzu"
    writes = statement_writes(text, engine)
    if writes and not allow_write:
        raise WriteNotConfirmedError(browser.path, "This statement may change the store")
    if row_cap <= 0 or timeout_s <= 0:
        raise InvalidInputError(f"row cap and time limit must be positive ({row_cap}, {timeout_s})")
    if not writes:
        return _run(browser, text, row_cap, timeout_s, process)
    with write_gate(browser.path, action="console write"):
        return replace(_run(browser, text, row_cap, timeout_s, process), wrote=True)


def _run(
    browser: StoreBrowser,
    text: str,
    row_cap: int,
    timeout_s: float,
    process: QueryProcess | None,
) -> ConsoleResult:
    start = time.perf_counter()
    changed: int | None = None  # the graph engines give no count of changed rows
    if runs_in_a_process(browser):
        assert isinstance(browser, GraphBrowser)
        process = process or QueryProcess(browser)
        names, rows, truncated = process.rows(text, row_cap, timeout_s)
    elif isinstance(browser, GraphBrowser):
        try:
            names, rows, truncated = browser.graph.rows_capped(
                text, row_cap, timeout_ms=int(timeout_s * 1000)
            )
        except QueryError as exc:
            if "cancelled" in exc.message and time.perf_counter() - start >= timeout_s:
                raise QueryError(f"The query ran past {timeout_s:g} s and was stopped.") from None
            raise
    elif isinstance(browser, SqliteBrowser):
        names, rows, truncated, changed = _sqlite_rows(browser, text, row_cap, timeout_s)
    else:
        raise InvalidInputError(f"The console cannot query {browser.path}")
    seconds = time.perf_counter() - start
    return ConsoleResult(text, _table(names, rows), truncated, seconds, changed=changed)


def _sqlite_rows(
    browser: SqliteBrowser, text: str, cap: int, timeout_s: float
) -> tuple[list[str], list[list[Any]], bool, int]:
    """Names, rows, whether more were left, and the rows the statement changed:
    the cursor's count for an INSERT, UPDATE or DELETE (that statement's own rows,
    as ``changes()`` counts them, without a trigger's); for any other statement, and
    for a RETURNING cut at the cap (its count is set only once it is read to the
    end), the connection's count of changes across it (0 for DDL)."""
    connection = browser.connection
    total_before = connection.total_changes
    deadline = time.monotonic() + timeout_s
    # SQLite calls this every N virtual-machine steps; a non-zero return aborts.
    connection.set_progress_handler(lambda: int(time.monotonic() > deadline), 10_000)
    try:
        cursor = connection.execute(text)
        names = [d[0] for d in cursor.description or ()]
        rows = [list(row) for row in cursor.fetchmany(cap + 1)]
        changed = cursor.rowcount
        if changed < 0 or len(rows) > cap:
            cursor.close()  # a RETURNING left unread has made its changes: count them
            changed = connection.total_changes - total_before
    except SqliteStatementError as exc:
        message = str(exc)
        if "readonly" in message or "read-only" in message:
            raise ReadOnlyStoreError(browser.path, "This store is open read-only") from None
        if "interrupted" in message:
            raise QueryError(f"The query ran past {timeout_s:g} s and was stopped.") from None
        raise QueryError(f"SQLite refused the query: {message}") from None
    except SqliteDatabaseError as exc:
        raise QueryError(f"SQLite refused the query: {exc}") from None
    finally:
        connection.set_progress_handler(None, 0)
    return names, rows[:cap], len(rows) > cap, changed
