"""Flat session memory in SQLite (``~/.amplihack/memory.db``).

The three tables are exactly seed 002's DDL ("Flat memory schema"). Reading
opens the file read-only (immutable when no writer is active), so an agent's
live store is never changed; only store_session_learning and delete_sessions
open it for writing, and only when asked. Expiry is decided in Python by one
SQL function (``flat_live``) that parses every timestamp format agents write,
so the same rule holds in every query, count and page. The schema, that
function and the row reading are :mod:`.flat_sqlite_rows`'.
"""

from __future__ import annotations

import json
import os
import uuid
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

from memexplorer.memory.flat_checks import check_learning
from memexplorer.memory.flat_model import (
    DEFAULT_LEARNING_TYPE,
    DeletedSessions,
    FlatMemory,
    FlatSession,
    json_object,
    utc_now,
)
from memexplorer.memory.flat_sqlite_rows import (
    FLAT_SQLITE_SCHEMA,
    FLAT_TABLES,
    LIVE,
    MEMORY_COLUMNS,
    install_live,
    sqlite_memory,
)
from memexplorer.memory.flat_store_base import FlatMemoryStore, Learning, MemoryFilter
from memexplorer.storage.exceptions import (
    CorruptStoreError,
    SchemaMismatchError,
    StoreLockedError,
)
from memexplorer.storage.sqlite_db import (
    SqliteConnection,
    SqliteDatabaseError,
    SqliteRow,
    SqliteStatementError,
    open_sqlite,
    sqlite_tables,
)
from memexplorer.storage.sqlite_readonly import open_sqlite_readonly
from memexplorer.storage.sqlite_writer import immediate_transaction

__all__ = ["SqliteFlatStore"]


class SqliteFlatStore(FlatMemoryStore):
    """One memory.db, read-only unless opened with ``read_only=False``."""

    backend = "sqlite"
    engine = "sqlite"

    # -- opening -----------------------------------------------------------------
    def _open(self, *, created: bool) -> None:
        self._connection = self._connect(created)
        self._connection.row_factory = SqliteRow
        install_live(self._connection)

    def _connect(self, created: bool) -> SqliteConnection:
        if self.read_only:
            connection = open_sqlite_readonly(self.path)
        else:
            if created:
                os.close(os.open(self.path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
            connection = open_sqlite(self.path, wait_s=2.0, any_thread=True)
            connection.isolation_level = None
        try:
            names = sqlite_tables(connection)
            if created or (not self.read_only and not names):
                connection.executescript(FLAT_SQLITE_SCHEMA)
            elif FLAT_TABLES - names:
                missing = ", ".join(sorted(FLAT_TABLES - names))
                raise SchemaMismatchError(
                    self.path,
                    f"This SQLite file is not a flat memory store (missing {missing})",
                    hint="Flat memory lives in memory.db with memory_entries, sessions "
                    "and session_agents.",
                )
        except SqliteDatabaseError as exc:
            connection.close()
            raise CorruptStoreError(self.path, f"SQLite cannot read this file ({exc})") from None
        except SchemaMismatchError:
            connection.close()
            raise
        return connection

    @contextmanager
    def _write(self) -> Iterator[SqliteConnection]:
        """One all-or-nothing write that waits for no other writer."""
        self._require_writable()
        with immediate_transaction(self._connection, self._busy) as connection:
            yield connection

    def _busy(self, exc: SqliteStatementError) -> StoreLockedError | None:
        """A BEGIN refused because another process writes (other refusals as they are)."""
        if "locked" in str(exc) or "busy" in str(exc):
            return StoreLockedError(self.path, "Another process is writing this store")
        return None

    # -- reading -----------------------------------------------------------------
    def _query(self, sql: str, params: dict[str, Any]) -> list[SqliteRow]:
        try:
            return self._connection.execute(
                sql, {"now": utc_now().timestamp(), **params}
            ).fetchall()
        except SqliteDatabaseError as exc:
            if "locked" in str(exc):
                raise StoreLockedError(self.path, "Another process holds this store") from None
            raise CorruptStoreError(self.path, f"SQLite cannot read this file ({exc})") from None

    @staticmethod
    def _filters(wanted: MemoryFilter) -> tuple[str, dict[str, Any]]:
        clauses, params = [LIVE], {}
        for column, value in (
            ("session_id", wanted.session_id),
            ("memory_type", wanted.memory_type),
            ("agent_id", wanted.agent_id),
        ):
            if value is not None:
                clauses.append(f"{column} = :{column}")
                params[column] = value
        return " AND ".join(clauses), params

    def list_sessions(self) -> list[FlatSession]:
        """Every session, most recently used first, with live counts per agent."""
        agents: dict[str, dict[str, int]] = {}
        for row in self._query(
            f"SELECT session_id, agent_id, count(*) FROM memory_entries WHERE {LIVE} "
            "GROUP BY session_id, agent_id",
            {},
        ):
            agents.setdefault(row[0], {})[row[1]] = row[2]
        rows = self._query(
            "SELECT session_id, created_at, last_accessed, metadata FROM sessions "
            "ORDER BY last_accessed DESC, session_id",
            {},
        )
        known = {row["session_id"] for row in rows}
        orphans = sorted(set(agents) - known)
        sessions = [
            FlatSession(
                row["session_id"],
                str(row["created_at"] or ""),
                str(row["last_accessed"] or ""),
                sum(agents.get(row["session_id"], {}).values()),
                dict(sorted(agents.get(row["session_id"], {}).items())),
                json_object(row["metadata"]),
            )
            for row in rows
        ]
        sessions += [
            FlatSession(sid, "", "", sum(agents[sid].values()), dict(sorted(agents[sid].items())))
            for sid in orphans
        ]
        return sessions

    def _list_memories(
        self, wanted: MemoryFilter, limit: int | None, offset: int
    ) -> list[FlatMemory]:
        where, params = self._filters(wanted)
        sql = (
            f"SELECT {MEMORY_COLUMNS} FROM memory_entries WHERE {where} "
            "ORDER BY accessed_at DESC, importance DESC, id LIMIT :limit OFFSET :offset"
        )
        params.update(limit=-1 if limit is None else max(limit, 0), offset=offset)
        return [sqlite_memory(row) for row in self._query(sql, params)]

    def _count_memories(self, wanted: MemoryFilter) -> int:
        where, params = self._filters(wanted)
        return int(self._query(f"SELECT count(*) FROM memory_entries WHERE {where}", params)[0][0])

    def agent_counts(self) -> dict[str, int]:
        """collect_agent_counts: live memories per agent, by agent name."""
        rows = self._query(
            f"SELECT agent_id, count(*) FROM memory_entries WHERE {LIVE} "
            "GROUP BY agent_id ORDER BY agent_id",
            {},
        )
        return {row[0]: row[1] for row in rows}

    def memory_types(self) -> list[str]:
        rows = self._query(
            f"SELECT DISTINCT memory_type FROM memory_entries WHERE {LIVE} ORDER BY 1", {}
        )
        return [row[0] for row in rows]

    # -- writing -----------------------------------------------------------------
    def _store_learning(self, learning: Learning) -> str | None:
        """One memory_entries row, its session and session agent created or touched."""
        session_id, agent_id, content = learning.session_id, learning.agent_id, learning.content
        importance, confidence, tags = learning.importance, learning.confidence, learning.tags
        title, memory_type, expires_at = learning.title, learning.memory_type, learning.expires_at
        check_learning(learning)
        if not memory_type or not memory_type.strip():
            memory_type = DEFAULT_LEARNING_TYPE
        extra = dict(learning.metadata or {})
        if confidence is not None:
            extra["confidence"] = float(confidence)
        now = utc_now().isoformat()
        memory_id = str(uuid.uuid4())
        with self._write() as db:
            duplicate = db.execute(
                "SELECT 1 FROM memory_entries WHERE session_id = ? AND agent_id = ? "
                "AND content = ? LIMIT 1",
                (session_id, agent_id, content),
            ).fetchone()
            if duplicate:
                return None
            db.execute(
                "INSERT OR IGNORE INTO sessions (session_id, created_at, last_accessed, metadata) "
                "VALUES (?, ?, ?, '{}')",
                (session_id, now, now),
            )
            db.execute(
                "UPDATE sessions SET last_accessed = ? WHERE session_id = ?", (now, session_id)
            )
            db.execute(
                "INSERT OR IGNORE INTO session_agents (session_id, agent_id, first_used, "
                "last_used) VALUES (?, ?, ?, ?)",
                (session_id, agent_id, now, now),
            )
            db.execute(
                "UPDATE session_agents SET last_used = ? WHERE session_id = ? AND agent_id = ?",
                (now, session_id, agent_id),
            )
            db.execute(
                "INSERT INTO memory_entries (id, session_id, agent_id, memory_type, title, "
                "content, metadata, tags, importance, created_at, accessed_at, expires_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    memory_id, session_id, agent_id, memory_type,
                    title or content.strip()[:50], content, json.dumps(extra),
                    json.dumps(list(tags)) if tags else None, importance, now, now,
                    expires_at.isoformat() if expires_at else None,
                ),
            )  # fmt: skip
        return memory_id

    def delete_sessions(self, session_ids: Iterable[str]) -> DeletedSessions:
        """Remove these sessions and all their memories (expired ones too), atomically."""
        wanted = list(dict.fromkeys(session_ids))
        removed: list[str] = []
        memories = 0
        with self._write() as db:
            for session_id in wanted:
                count = db.execute(
                    "DELETE FROM memory_entries WHERE session_id = ?", (session_id,)
                ).rowcount
                db.execute("DELETE FROM session_agents WHERE session_id = ?", (session_id,))
                gone = db.execute("DELETE FROM sessions WHERE session_id = ?", (session_id,))
                if gone.rowcount or count:
                    removed.append(session_id)
                memories += max(count, 0)
        return DeletedSessions(removed, memories)

    def close(self) -> None:
        self._connection.close()
