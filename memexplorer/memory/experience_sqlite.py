"""The SQLite experience backend: the reference's ``experiences.db``, read and written.

Same tables, columns, indexes and FTS5 setup (``tokenize='porter'`` over
context and outcome) as the reference library, so either program opens the
other's files. Differences on purpose:

* An existing file opens read-only (immutable when no writer is active, so
  not even ``-wal``/``-shm`` files appear) and reopens for writing on the
  first write; reading never changes a running agent's store.
* New files get FTS triggers that keep the index exact on delete and update,
  and one extra index, ``(agent_name, timestamp)``, for newest-first reads.
* Search quotes each query word, so punctuation never becomes FTS syntax.

The file and schema are :mod:`.experience_sqlite_schema`'s; statistics and
retention :mod:`.experience_sqlite_upkeep`'s.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from memexplorer.memory.experience import Experience
from memexplorer.memory.experience_backend import (
    ExperienceFilter,
    MemoryBackend,
    Retention,
    check_experience,
    experiences_from_rows,
)
from memexplorer.memory.experience_sqlite_schema import (
    COLUMNS,
    FTS_DRIVEN_MAX,
    INSERT,
    SchemaFacts,
    fts_select,
    has_data,
    prepare_for_writing,
    read_schema,
    row_params,
    translate_sqlite_error,
)
from memexplorer.memory.experience_sqlite_upkeep import sqlite_cleanup, sqlite_statistics
from memexplorer.storage.exceptions import (
    CorruptStoreError,
    InvalidExperienceError,
    StoreClosedError,
    StoreError,
    StorePermissionError,
)
from memexplorer.storage.sqlite_db import (
    SqliteConnection,
    SqliteConstraintError,
    SqliteError,
    open_sqlite_autocommit,
)
from memexplorer.storage.sqlite_readonly import open_sqlite_readonly
from memexplorer.storage.sqlite_writer import immediate_transaction

__all__ = ["SQLiteExperienceBackend"]


class SQLiteExperienceBackend(MemoryBackend):
    """One agent's experiences in an ``experiences.db`` file (thread-safe)."""

    def __init__(self, db_path: str | Path, agent_name: str) -> None:
        super().__init__(db_path, agent_name)
        self._conn: SqliteConnection | None = None
        self._writer = False
        self._signature: tuple[Any, ...] | None = None
        self._schema = SchemaFacts()
        if has_data(self.db_path):
            self._open_reader()
        else:
            self._open_writer()

    # -- opening -------------------------------------------------------------------------
    def _signature_now(self) -> tuple[Any, ...]:
        stat = self.db_path.stat()
        return (stat.st_mtime_ns, stat.st_size, Path(f"{self.db_path}-wal").exists())

    def _open_reader(self) -> None:
        try:
            conn = open_sqlite_readonly(self.db_path)
        except CorruptStoreError as exc:
            raise CorruptStoreError(
                self.db_path, "Invalid or corrupted SQLite database", hint=exc.hint
            ) from None
        conn.row_factory = None
        self._conn = conn
        self._writer = False
        self._signature = self._signature_now()
        try:
            self._schema = read_schema(conn, self.db_path)
        except SqliteError as exc:
            raise translate_sqlite_error(self.db_path, exc, "reading its schema") from None

    def _open_writer(self) -> None:
        path = self.db_path
        try:
            path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            if not path.exists():  # private before SQLite writes a byte into it
                os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
        except PermissionError:
            raise StorePermissionError(path.parent, "Cannot create the storage folder") from None
        try:
            conn = open_sqlite_autocommit(path, wait_s=5.0, any_thread=True)
        except SqliteError as exc:
            raise translate_sqlite_error(path, exc, "opening it for writing") from None
        try:
            self._schema = prepare_for_writing(conn, path)
        except (SqliteError, StoreError) as exc:
            conn.close()
            if isinstance(exc, StoreError):
                raise
            raise translate_sqlite_error(path, exc, "creating its schema") from None
        except BaseException:
            conn.close()
            raise
        if self._conn is not None:
            self._conn.close()
        self._conn = conn
        self._writer = True

    # -- connections ---------------------------------------------------------------------
    def _check_open(self) -> SqliteConnection:
        if self._closed or self._conn is None:
            raise StoreClosedError(self.db_path, "This experience store has been closed")
        return self._conn

    def _reader(self) -> SqliteConnection:
        """The connection for a read; a read-only one is reopened when another
        process has changed the file since (an immutable open would not see it)."""
        conn = self._check_open()
        if not self._writer and self._signature != self._signature_now():
            conn.close()
            self._conn = None
            self._open_reader()
            conn = self._check_open()
        return conn

    def _writable(self) -> SqliteConnection:
        self._check_open()
        if not self._writer:
            self._open_writer()
        return self._check_open()

    @property
    def read_only(self) -> bool:
        self._check_open()
        return not self._writer

    @property
    def connection(self) -> SqliteConnection:
        """The open sqlite3 connection (read-only until the first write)."""
        return self._check_open()

    # -- writing -------------------------------------------------------------------------
    def store_experiences(self, experiences: list[Experience]) -> list[str]:
        """Write several experiences in one transaction (all or none)."""
        rows = [row_params(self.agent_name, check_experience(e)) for e in experiences]
        with self._lock:
            conn = self._writable()
            try:
                with immediate_transaction(conn):
                    conn.executemany(INSERT, rows)
            except SqliteConstraintError:
                raise InvalidExperienceError(
                    "An experience with this experience_id is already stored"
                ) from None
            except SqliteError as exc:
                raise translate_sqlite_error(self.db_path, exc, "storing an experience") from None
        return [row[0] for row in rows]

    # -- reading -------------------------------------------------------------------------
    def _select(self, sql: str, params: list[Any]) -> list[Experience]:
        with self._lock:
            conn = self._reader()
            if not self._schema.has_table:
                return []
            try:
                rows = conn.execute(sql, params).fetchall()
            except SqliteError as exc:
                raise translate_sqlite_error(self.db_path, exc, "reading experiences") from None
        return experiences_from_rows(rows)

    def _filters(self, wanted: ExperienceFilter) -> tuple[str, list[Any]]:
        where = "e.agent_name = ? AND e.confidence >= ?"
        params: list[Any] = [self.agent_name, float(wanted.min_confidence)]
        if wanted.experience_type is not None:
            where += " AND e.experience_type = ?"
            params.append(wanted.experience_type.value)
        return where, params

    def retrieve(self, wanted: ExperienceFilter, limit: int | None) -> list[Experience]:
        where, params = self._filters(wanted)
        sql = f"SELECT {COLUMNS} FROM experiences e WHERE {where} ORDER BY e.timestamp DESC"
        if limit:
            sql += " LIMIT ?"
            params.append(limit)
        return self._select(sql, params)

    def _search(
        self, words: list[str], wanted: ExperienceFilter, limit: int | None
    ) -> list[Experience]:
        """Every query word (porter-stemmed), through the FTS index when there is one."""
        if not words or limit == 0:
            return []
        if limit is None:
            limit = -1  # SQLite: a negative LIMIT means none
        where, params = self._filters(wanted)
        with self._lock:
            self._reader()
            use_fts = self._schema.has_fts
        if use_fts:
            match = " ".join('"' + word.replace('"', '""') + '"' for word in words)
            try:
                return self._fts_search(match, where, params, limit)
            except StoreError:
                pass  # a word the tokenizer cannot phrase: fall back to LIKE
        for word in words:
            pattern = "%" + word.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
            where += " AND (e.context LIKE ? ESCAPE '\\' OR e.outcome LIKE ? ESCAPE '\\')"
            params += [pattern, pattern]
        sql = f"SELECT {COLUMNS} FROM experiences e WHERE {where} ORDER BY e.timestamp DESC LIMIT ?"
        return self._select(sql, [*params, limit])

    def _fts_search(
        self, match: str, where: str, params: list[Any], limit: int
    ) -> list[Experience]:
        """The experiences the FTS index matches, by the plan their number picks."""
        with self._lock:
            conn = self._reader()
            try:
                matches = conn.execute(
                    "SELECT count(*) FROM (SELECT rowid FROM experiences_fts "
                    "WHERE experiences_fts MATCH ? LIMIT ?)",
                    (match, FTS_DRIVEN_MAX + 1),
                ).fetchone()[0]
            except SqliteError as exc:
                raise translate_sqlite_error(self.db_path, exc, "searching") from None
        if matches == 0:
            return []
        return self._select(fts_select(matches, where), [match, *params, limit])

    def get_statistics(self) -> dict[str, Any]:
        """total_experiences, by_type ({ExperienceType: n}), storage_size_kb and
        compressed_experiences, for this agent."""
        with self._lock:
            conn = self._reader()
            try:
                return sqlite_statistics(conn, self.agent_name, self.db_path, self._schema)
            except SqliteError as exc:
                raise translate_sqlite_error(self.db_path, exc, "counting experiences") from None

    def cleanup(self, retention: Retention) -> None:
        """Mark old experiences compressed, then apply the age and count limits;
        reclaim the space deleted rows leave behind."""
        with self._lock:
            conn = self._writable()
            try:
                sqlite_cleanup(conn, self.agent_name, retention, self._schema)
            except SqliteError as exc:
                raise translate_sqlite_error(self.db_path, exc, "applying retention") from None

    # -- lifecycle -----------------------------------------------------------------------
    def _release(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None
