"""The SQLite experience store's file and schema: the reference's DDL (and what new
files get besides), its header check, what an open store's schema holds, the row
an experience becomes, and SQLite's errors in the engine's words.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memexplorer.memory.experience import Experience
from memexplorer.memory.experience_layouts import AMPLIHACK_COLUMNS, detect_layout
from memexplorer.storage.exceptions import (
    CorruptStoreError,
    NotAStoreError,
    SchemaMismatchError,
    StoreError,
    StoreLockedError,
    StorePermissionError,
)
from memexplorer.storage.sqlite_db import SqliteConnection, SqliteError
from memexplorer.storage.sqlite_writer import immediate_transaction

__all__ = [
    "COLUMNS",
    "COLUMNS_OF_E",
    "FTS_DRIVEN_MAX",
    "INSERT",
    "REBUILD_FTS",
    "SchemaFacts",
    "fts_select",
    "has_data",
    "prepare_for_writing",
    "read_schema",
    "row_params",
    "schema_statements",
    "translate_sqlite_error",
]

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

REBUILD_FTS = "INSERT INTO experiences_fts(experiences_fts) VALUES ('rebuild')"
COLUMNS = "experience_id, experience_type, context, outcome, confidence, timestamp, metadata, tags"
COLUMNS_OF_E = ", ".join(f"e.{name.strip()}" for name in COLUMNS.split(","))
INSERT = (
    "INSERT INTO experiences (experience_id, agent_name, experience_type, context, outcome, "
    "confidence, timestamp, metadata, tags, compressed) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 0)"
)


def translate_sqlite_error(path: Path, exc: SqliteError, doing: str) -> StoreError:
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


def schema_statements(new: bool) -> tuple[str, ...]:
    if new:
        return _SCHEMA + _NEW_STORE_INDEX + _TRIGGERS + _NEW_STORE_TRIGGERS
    return _SCHEMA + _TRIGGERS


def row_params(agent: str, experience: Experience) -> tuple[Any, ...]:
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


def has_data(path: Path) -> bool:
    """Whether ``path`` is an SQLite file with something in it (False: nothing there,
    or empty); a folder, an unreadable file or another kind of file raises."""
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


@dataclass(frozen=True)
class SchemaFacts:
    """What an open store's schema holds, as the backend needs to know it."""

    has_table: bool = False
    has_fts: bool = False
    #: The delete trigger uses FTS5's 'delete' command (the reference's does not).
    exact_fts_delete: bool = True


def read_schema(conn: SqliteConnection, path: Path) -> SchemaFacts:
    """The store's schema; an experiences table of another layout is refused."""
    rows = conn.execute("SELECT type, name, sql FROM sqlite_master").fetchall()
    names = {name for _, name, _ in rows}
    delete_sql = next((sql for kind, name, sql in rows if name == "experiences_fts_delete"), "")
    facts = SchemaFacts(
        "experiences" in names, "experiences_fts" in names, "'delete'" in (delete_sql or "")
    )
    if facts.has_table:
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
                path,
                f"Not the reference ExperienceStore schema: {detail}",
                hint="Open it with `memexplorer stats` to see what it holds.",
            )
    return facts


def prepare_for_writing(conn: SqliteConnection, path: Path) -> SchemaFacts:
    """A connection open for writing made ready: WAL for a new file, the schema's
    missing pieces created, an index built for rows written without one."""
    new = conn.execute("PRAGMA page_count").fetchone()[0] == 0
    if new:
        conn.execute("PRAGMA journal_mode=WAL")
    if conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal":
        conn.execute("PRAGMA synchronous=NORMAL")
    before = read_schema(conn, path)
    with immediate_transaction(conn):
        for statement in schema_statements(new):
            conn.execute(statement)
        if before.has_table and not before.has_fts:
            conn.execute(REBUILD_FTS)
    return read_schema(conn, path)


#: Up to this many FTS matches, search reads the matches and sorts them; above
#: it, search walks the agent's experiences newest first and stops at ``limit``.
FTS_DRIVEN_MAX = 2000


def fts_select(matches: int, where: str) -> str:
    """The search for ``matches`` FTS matches (parameters: the MATCH text, those of
    ``where``, the limit). SQLite cannot know how many match, so the caller counts:
    few, then read them by rowid and sort; many, then walk the agent's rows newest
    first until ``limit`` of them are among the matches."""
    if matches <= FTS_DRIVEN_MAX:
        # The unary + keeps SQLite from driving the query by the agent index.
        return (
            f"SELECT {COLUMNS_OF_E} FROM experiences_fts f JOIN experiences e "
            f"ON e.rowid = f.rowid WHERE experiences_fts MATCH ? AND "
            f"{where.replace('e.agent_name', '+e.agent_name')} "
            "ORDER BY e.timestamp DESC LIMIT ?"
        )
    return (
        f"SELECT {COLUMNS} FROM experiences e WHERE e.rowid IN "
        "(SELECT rowid FROM experiences_fts WHERE experiences_fts MATCH ?) "
        f"AND {where} ORDER BY e.timestamp DESC LIMIT ?"
    )
