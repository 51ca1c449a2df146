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
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from memexplorer.memory.experience import Experience, ExperienceType
from memexplorer.memory.experience_backend import (
    COMPRESS_AFTER_DAYS,
    KEEP_PATTERN_CONFIDENCE,
    Retention,
    StoredRow,
    check_experience,
    check_filters,
    cutoff_seconds,
    experience_from_row,
    query_words,
    storage_bytes,
)
from memexplorer.memory.experience_layouts import AMPLIHACK_COLUMNS, detect_layout
from memexplorer.storage.exceptions import (
    CorruptStoreError,
    InvalidExperienceError,
    NotAStoreError,
    SchemaMismatchError,
    StoreClosedError,
    StoreError,
    StoreLockedError,
    StorePermissionError,
)
from memexplorer.storage.sqlite_db import (
    SqliteConnection,
    SqliteConstraintError,
    SqliteError,
    open_sqlite_autocommit,
)
from memexplorer.storage.sqlite_readonly import open_sqlite_readonly

__all__ = ["SQLiteExperienceBackend"]

_SQLITE_MAGIC = b"SQLite format 3\x00"

_SCHEMA = (
    """CREATE TABLE IF NOT EXISTS experiences (
        experience_id TEXT PRIMARY KEY,
        agent_name TEXT NOT NULL,
        experience_type TEXT NOT NULL,
        context TEXT NOT NULL,
        outcome TEXT NOT NULL,
        confidence REAL NOT NULL,
        timestamp INTEGER NOT NULL,
        metadata TEXT,
        tags TEXT,
        compressed INTEGER DEFAULT 0
    )""",
    "CREATE INDEX IF NOT EXISTS idx_agent_name ON experiences(agent_name)",
    "CREATE INDEX IF NOT EXISTS idx_experience_type ON experiences(experience_type)",
    "CREATE INDEX IF NOT EXISTS idx_timestamp ON experiences(timestamp)",
    "CREATE INDEX IF NOT EXISTS idx_confidence ON experiences(confidence)",
    "CREATE INDEX IF NOT EXISTS idx_agent_type ON experiences(agent_name, experience_type)",
    """CREATE VIRTUAL TABLE IF NOT EXISTS experiences_fts USING fts5(
        experience_id, context, outcome, content='experiences', tokenize='porter'
    )""",
)
#: Only for files this backend creates (an existing store's indexes are left as is).
_NEW_STORE_INDEX = (
    "CREATE INDEX IF NOT EXISTS idx_agent_timestamp ON experiences(agent_name, timestamp)",
    # retention's "not yet compressed and older than 30 days" without a scan
    "CREATE INDEX IF NOT EXISTS idx_agent_compressed "
    "ON experiences(agent_name, compressed, timestamp)",
)
#: Up to this many FTS matches, search reads the matches and sorts them; above
#: it, search walks the agent's experiences newest first and stops at ``limit``.
FTS_DRIVEN_MAX = 2000
#: The FTS rows use the experience's rowid, and deletes go through FTS5's
#: 'delete' command, which an external-content index needs. A store that
#: already has triggers of these names (the reference's) keeps its own.
_TRIGGERS = (
    """CREATE TRIGGER IF NOT EXISTS experiences_fts_insert AFTER INSERT ON experiences BEGIN
        INSERT INTO experiences_fts(rowid, experience_id, context, outcome)
        VALUES (new.rowid, new.experience_id, new.context, new.outcome);
    END""",
    """CREATE TRIGGER IF NOT EXISTS experiences_fts_delete AFTER DELETE ON experiences BEGIN
        INSERT INTO experiences_fts(experiences_fts, rowid, experience_id, context, outcome)
        VALUES ('delete', old.rowid, old.experience_id, old.context, old.outcome);
    END""",
)
_NEW_STORE_TRIGGERS = (
    """CREATE TRIGGER IF NOT EXISTS experiences_fts_update
    AFTER UPDATE OF experience_id, context, outcome ON experiences BEGIN
        INSERT INTO experiences_fts(experiences_fts, rowid, experience_id, context, outcome)
        VALUES ('delete', old.rowid, old.experience_id, old.context, old.outcome);
        INSERT INTO experiences_fts(rowid, experience_id, context, outcome)
        VALUES (new.rowid, new.experience_id, new.context, new.outcome);
    END""",
)

_REBUILD = "INSERT INTO experiences_fts(experiences_fts) VALUES ('rebuild')"
_COLUMNS = "experience_id, experience_type, context, outcome, confidence, timestamp, metadata, tags"
_COLUMNS_OF_E = ", ".join(f"e.{name.strip()}" for name in _COLUMNS.split(","))
_INSERT = (
    "INSERT INTO experiences (experience_id, agent_name, experience_type, context, outcome, "
    "confidence, timestamp, metadata, tags, compressed) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 0)"
)


def _translate(path: Path, exc: SqliteError, doing: str) -> StoreError:
    """An sqlite3 error as the engine's error, saying what to do."""
    text = str(exc)
    lowered = text.lower()
    if "locked" in lowered or "busy" in lowered:
        return StoreLockedError(path, f"Another process holds this SQLite store ({doing})")
    denied = "readonly" in lowered or "read-only" in lowered or "unable to open" in lowered
    if denied and not os.access(path if path.exists() else path.parent, os.W_OK):
        return StorePermissionError(path, f"Cannot write the store ({text})")
    if "not a database" in lowered or "malformed" in lowered or "corrupt" in lowered:
        return CorruptStoreError(path, f"Invalid or corrupted SQLite database ({text})")
    return StoreError(path, f"SQLite failed while {doing} ({text})")


def _statements(new: bool) -> tuple[str, ...]:
    if new:
        return _SCHEMA + _NEW_STORE_INDEX + _TRIGGERS + _NEW_STORE_TRIGGERS
    return _SCHEMA + _TRIGGERS


def _row_params(agent: str, experience: Experience) -> tuple[Any, ...]:
    return (
        experience.experience_id,
        agent,
        experience.experience_type.value,
        experience.context,
        experience.outcome,
        float(experience.confidence),
        int(experience.timestamp.timestamp()),
        json.dumps(experience.metadata) if experience.metadata else "{}",
        json.dumps(experience.tags) if experience.tags else "[]",
    )


class SQLiteExperienceBackend:
    """One agent's experiences in an ``experiences.db`` file (thread-safe)."""

    def __init__(self, db_path: str | Path, agent_name: str) -> None:
        self.db_path = Path(db_path)
        self.agent_name = agent_name
        self._lock = threading.RLock()
        self._conn: SqliteConnection | None = None
        self._writer = False
        self._closed = False
        self._signature: tuple[Any, ...] | None = None
        self._has_table = False
        self._has_fts = False
        self._exact_fts_delete = True
        if self._exists_with_data():
            self._open_reader()
        else:
            self._open_writer()

    # -- opening -------------------------------------------------------------------------
    def _exists_with_data(self) -> bool:
        path = self.db_path
        if path.is_dir():
            raise NotAStoreError(path, "Expected an SQLite file, found a folder")
        if not path.exists():
            return False
        try:
            with path.open("rb") as handle:
                header = handle.read(100)
        except PermissionError:
            raise StorePermissionError(path, "Cannot read the store") from None
        if not header:
            return False  # SQLite treats an empty file as an empty database.
        if not header.startswith(_SQLITE_MAGIC):
            what = "a Kuzu store" if header[:4] in (b"KUZU", b"LBUG") else "not a database"
            raise CorruptStoreError(
                path, f"Invalid SQLite database: the header says {what} (corrupted or wrong file)"
            )
        return True

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
            self._read_schema(conn)
        except SqliteError as exc:
            raise _translate(self.db_path, exc, "reading its schema") from None

    def _read_schema(self, conn: SqliteConnection) -> None:
        rows = conn.execute("SELECT type, name, sql FROM sqlite_master").fetchall()
        names = {name for _, name, _ in rows}
        self._has_table = "experiences" in names
        self._has_fts = "experiences_fts" in names
        delete_sql = next((sql for kind, name, sql in rows if name == "experiences_fts_delete"), "")
        self._exact_fts_delete = "'delete'" in (delete_sql or "")
        if self._has_table:
            columns = [row[1] for row in conn.execute("PRAGMA table_info(experiences)")]
            missing = [c for c in AMPLIHACK_COLUMNS if c not in columns]
            if missing:
                layout = detect_layout(columns)
                detail = (
                    "it holds the seed-004 Experience layout"
                    if layout == "seed-004"
                    else f"its experiences table lacks {', '.join(missing)}"
                )
                raise SchemaMismatchError(
                    self.db_path,
                    f"Not the reference ExperienceStore schema: {detail}",
                    hint="Open it with `memexplorer stats` to see what it holds.",
                )

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
            raise _translate(path, exc, "opening it for writing") from None
        try:
            new = conn.execute("PRAGMA page_count").fetchone()[0] == 0
            if new:
                conn.execute("PRAGMA journal_mode=WAL")
            if conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal":
                conn.execute("PRAGMA synchronous=NORMAL")
            self._read_schema(conn)
            had_rows = self._has_table and not self._has_fts
            with self._transaction(conn):
                for statement in _statements(new):
                    conn.execute(statement)
                if had_rows:
                    conn.execute(_REBUILD)
            self._read_schema(conn)
        except (SqliteError, StoreError) as exc:
            conn.close()
            if isinstance(exc, StoreError):
                raise
            raise _translate(path, exc, "creating its schema") from None
        except BaseException:
            conn.close()
            raise
        if self._conn is not None:
            self._conn.close()
        self._conn = conn
        self._writer = True

    @contextmanager
    def _transaction(self, conn: SqliteConnection) -> Iterator[SqliteConnection]:
        conn.execute("BEGIN IMMEDIATE")
        try:
            yield conn
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")

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
    def store_experience(self, experience: Experience) -> str:
        return self.store_experiences([experience])[0]

    def store_experiences(self, experiences: list[Experience]) -> list[str]:
        """Write several experiences in one transaction (all or none)."""
        rows = [_row_params(self.agent_name, check_experience(e)) for e in experiences]
        with self._lock:
            conn = self._writable()
            try:
                with self._transaction(conn):
                    conn.executemany(_INSERT, rows)
            except SqliteConstraintError:
                raise InvalidExperienceError(
                    "An experience with this experience_id is already stored"
                ) from None
            except SqliteError as exc:
                raise _translate(self.db_path, exc, "storing an experience") from None
        return [row[0] for row in rows]

    # -- reading -------------------------------------------------------------------------
    def _select(self, sql: str, params: list[Any]) -> list[Experience]:
        with self._lock:
            conn = self._reader()
            if not self._has_table:
                return []
            try:
                rows = conn.execute(sql, params).fetchall()
            except SqliteError as exc:
                raise _translate(self.db_path, exc, "reading experiences") from None
        out = []
        for row in rows:
            experience = experience_from_row(StoredRow(*row))
            if experience is not None:
                out.append(experience)
        return out

    def _filters(
        self, experience_type: ExperienceType | None, min_confidence: float
    ) -> tuple[str, list[Any]]:
        where = "e.agent_name = ? AND e.confidence >= ?"
        params: list[Any] = [self.agent_name, float(min_confidence)]
        if experience_type is not None:
            where += " AND e.experience_type = ?"
            params.append(experience_type.value)
        return where, params

    def retrieve_experiences(
        self,
        limit: int | None = None,
        experience_type: ExperienceType | None = None,
        min_confidence: float = 0.0,
    ) -> list[Experience]:
        """Newest first; ``limit`` None (or 0, as the reference) means all."""
        check_filters(limit, experience_type, min_confidence)
        where, params = self._filters(experience_type, min_confidence)
        sql = f"SELECT {_COLUMNS} FROM experiences e WHERE {where} ORDER BY e.timestamp DESC"
        if limit:
            sql += " LIMIT ?"
            params.append(limit)
        return self._select(sql, params)

    def search(
        self,
        query: str,
        experience_type: ExperienceType | None = None,
        min_confidence: float = 0.0,
        limit: int = 10,
    ) -> list[Experience]:
        """Experiences holding every query word (porter-stemmed), newest first.

        A blank query returns the newest ones, as retrieve_experiences does.
        """
        check_filters(limit, experience_type, min_confidence)
        words = query_words(query)  # raises unless query is a string
        if not query.strip():
            return self.retrieve_experiences(limit or None, experience_type, min_confidence)
        if not words or limit == 0:
            return []
        if limit is None:
            limit = -1  # SQLite: a negative LIMIT means none
        where, params = self._filters(experience_type, min_confidence)
        with self._lock:
            self._reader()
            use_fts = self._has_fts
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
        sql = (
            f"SELECT {_COLUMNS} FROM experiences e WHERE {where} ORDER BY e.timestamp DESC LIMIT ?"
        )
        return self._select(sql, [*params, limit])

    def _fts_search(
        self, match: str, where: str, params: list[Any], limit: int
    ) -> list[Experience]:
        """Pick the plan by how many experiences match (SQLite cannot know):
        few, then read them by rowid and sort; many, then walk the agent's rows
        newest first until ``limit`` of them are among the matches."""
        with self._lock:
            conn = self._reader()
            try:
                matches = conn.execute(
                    "SELECT count(*) FROM (SELECT rowid FROM experiences_fts "
                    "WHERE experiences_fts MATCH ? LIMIT ?)",
                    (match, FTS_DRIVEN_MAX + 1),
                ).fetchone()[0]
            except SqliteError as exc:
                raise _translate(self.db_path, exc, "searching") from None
        if matches == 0:
            return []
        if matches <= FTS_DRIVEN_MAX:
            # The unary + keeps SQLite from driving the query by the agent index.
            sql = (
                f"SELECT {_COLUMNS_OF_E} FROM experiences_fts f JOIN experiences e "
                f"ON e.rowid = f.rowid WHERE experiences_fts MATCH ? AND "
                f"{where.replace('e.agent_name', '+e.agent_name')} "
                "ORDER BY e.timestamp DESC LIMIT ?"
            )
        else:
            sql = (
                f"SELECT {_COLUMNS} FROM experiences e WHERE e.rowid IN "
                "(SELECT rowid FROM experiences_fts WHERE experiences_fts MATCH ?) "
                f"AND {where} ORDER BY e.timestamp DESC LIMIT ?"
            )
        return self._select(sql, [match, *params, limit])

    def get_statistics(self) -> dict[str, Any]:
        """total_experiences, by_type ({ExperienceType: n}), storage_size_kb and
        compressed_experiences, for this agent."""
        total = compressed = 0
        by_type: dict[ExperienceType, int] = {}
        with self._lock:
            conn = self._reader()
            if self._has_table:
                try:
                    rows = conn.execute(
                        "SELECT experience_type, count(*), coalesce(sum(compressed != 0), 0) "
                        "FROM experiences WHERE agent_name = ? GROUP BY experience_type",
                        (self.agent_name,),
                    ).fetchall()
                except SqliteError as exc:
                    raise _translate(self.db_path, exc, "counting experiences") from None
                for kind, count, packed in rows:
                    total += count
                    compressed += packed
                    if kind in ExperienceType._value2member_map_:
                        by_type[ExperienceType(kind)] = count
        return {
            "total_experiences": total,
            "by_type": by_type,
            "storage_size_kb": storage_bytes(self.db_path) / 1024,
            "compressed_experiences": compressed,
        }

    # -- retention -----------------------------------------------------------------------
    def cleanup(self, retention: Retention) -> None:
        """Mark old experiences compressed, then apply the age and count limits;
        reclaim the space deleted rows leave behind."""
        agent = self.agent_name
        with self._lock:
            conn = self._writable()
            deleted = 0
            try:
                with self._transaction(conn):
                    if retention.auto_compress:
                        conn.execute(
                            "UPDATE experiences SET compressed = 1 "
                            "WHERE agent_name = ? AND timestamp < ? AND compressed = 0",
                            (agent, cutoff_seconds(COMPRESS_AFTER_DAYS)),
                        )
                    if retention.max_age_days:
                        deleted += conn.execute(
                            "DELETE FROM experiences WHERE agent_name = ? AND timestamp < ?",
                            (agent, cutoff_seconds(retention.max_age_days)),
                        ).rowcount
                    if retention.max_experiences:
                        deleted += conn.execute(
                            """DELETE FROM experiences
                               WHERE agent_name = ?
                                 AND NOT (experience_type = 'pattern' AND confidence >= ?)
                                 AND rowid NOT IN (
                                   SELECT rowid FROM experiences WHERE agent_name = ?
                                   ORDER BY timestamp DESC, rowid DESC LIMIT ?)""",
                            (agent, KEEP_PATTERN_CONFIDENCE, agent, retention.max_experiences),
                        ).rowcount
                    if deleted and not self._exact_fts_delete:
                        # The reference's delete trigger leaves stale index rows.
                        conn.execute(
                            "INSERT INTO experiences_fts(experiences_fts) VALUES ('rebuild')"
                        )
                if deleted:
                    self._reclaim(conn)
            except SqliteError as exc:
                raise _translate(self.db_path, exc, "applying retention") from None

    def _reclaim(self, conn: SqliteConnection) -> None:
        """VACUUM when a quarter of the file is free pages (the reference vacuums
        after every delete; this keeps its effect without rewriting big stores
        for one row)."""
        free = conn.execute("PRAGMA freelist_count").fetchone()[0]
        pages = conn.execute("PRAGMA page_count").fetchone()[0]
        if pages and free * 4 >= pages:
            conn.execute("VACUUM")
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    # -- lifecycle -----------------------------------------------------------------------
    def close(self) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True
            if self._conn is not None:
                self._conn.close()
                self._conn = None
