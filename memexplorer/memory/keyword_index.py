"""A keyword index of one agent's facts, kept in memexplorer's cache, never in the store.

Why: every retrieval profile tests ``lower(text) CONTAINS word`` on every fact,
which at a million facts is a scan of about a second per query. This index
holds, per fact, the texts exactly as the store's own ``lower()`` returns them,
its confidence and its creation time, and a trigram full-text index (SQLite
FTS5, case-sensitive) over them. :mod:`.keyword_matches` finds candidates with
it and decides the match in Python on those same lowered texts, so the
database's answer is reproduced, never approximated (docs/keyword-index.md).

It lives in ``$MEMEXPLORER_INDEX_CACHE`` (else ``$XDG_CACHE_HOME/memexplorer/
keyword-index``), one SQLite file per store path and agent, stamped with the
store's fingerprint (size, mtime and first bytes of every file of the store,
its write-ahead log included): a store that changed gets a new index, built in
a temporary file and renamed into place last.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memexplorer.storage.atomic_files import replace_file
from memexplorer.storage.graph_store import GraphStore
from memexplorer.storage.sqlite_db import (
    SqliteConnection,
    SqliteDatabaseError,
    SqliteError,
    open_sqlite,
    open_sqlite_mode_ro,
)
from memexplorer.storage.user_folders import cache_folder

__all__ = ["KeywordIndex", "index_cache_root", "open_index", "store_fingerprint"]

#: Facts read from the store per batch while building.
_BATCH = 50_000
_FORMAT = "3"

_FACTS = """
    MATCH (m:SemanticMemory)
    WHERE offset(id(m)) >= $low AND offset(id(m)) < $high AND m.agent_id = $agent
    RETURN offset(id(m)), m.memory_id, lower(m.content), lower(m.concept),
           lower(m.entity_name), m.confidence, m.created_at, m.concept, m.content,
           m.source_id, m.tags, m.metadata
"""


def index_cache_root() -> Path:
    """``$MEMEXPLORER_INDEX_CACHE``, else ``$XDG_CACHE_HOME/memexplorer/keyword-index``."""
    configured = os.environ.get("MEMEXPLORER_INDEX_CACHE")
    if configured:
        return Path(configured)
    return cache_folder() / "keyword-index"


def _store_files(path: Path) -> list[Path]:
    """The store's files: the database file or folder's files, and its log siblings."""
    files = sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else [path]
    files += sorted(p for p in path.parent.glob(path.name + ".*") if p.is_file())
    return files


def store_fingerprint(path: Path) -> str:
    """Size, modification time and first 4 KiB of every file of the store, hashed."""
    digest = hashlib.sha256()
    for file in _store_files(path):
        try:
            stat = file.stat()
            with file.open("rb") as handle:
                head = handle.read(4096)
        except FileNotFoundError:
            continue
        digest.update(f"{file.name}|{stat.st_size}|{stat.st_mtime_ns}|".encode())
        digest.update(head)
    return digest.hexdigest()


@dataclass
class KeywordIndex:
    """An open index: SQLite tables ``facts`` (by confidence), ``stored``, ``grams``
    (FTS5, trigram) and ``gram_docs``."""

    db: SqliteConnection
    facts: int
    #: False when a fact has no confidence or no creation time: the ORDER BYs of
    #: the profiles put NULLs where the database decides, so the scan answers.
    orderable: bool

    def rows(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        return self.db.execute(sql, params).fetchall()


_SCHEMA = (
    # Filled in table order, then copied into `facts` in (confidence desc, offset)
    # order so the long walks (by confidence) read the table front to back.
    """CREATE TEMP TABLE loaded(pos INTEGER PRIMARY KEY, memory_id TEXT, content TEXT,
           concept TEXT, entity TEXT, confidence REAL, created_at TEXT)""",
    """CREATE TABLE facts(rank INTEGER PRIMARY KEY, pos INTEGER UNIQUE, memory_id TEXT,
           content TEXT, concept TEXT, entity TEXT, confidence REAL, created_at TEXT)""",
    """CREATE TABLE stored(pos INTEGER PRIMARY KEY, raw_concept TEXT, raw_content TEXT,
           source_id TEXT, tags TEXT, metadata TEXT)""",
    "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT)",
    # One trigram per query (keyword_matches), so no positions: detail=column.
    """CREATE VIRTUAL TABLE grams USING fts5(content, concept, entity,
           tokenize='trigram case_sensitive 1', content='', detail='column')""",
    # How many facts hold each trigram per column: which tests are rare, without
    # reading a long posting list.
    "CREATE TABLE gram_docs(term TEXT, col TEXT, docs INTEGER, PRIMARY KEY(term, col))",
)

_FINISH = (
    """INSERT INTO grams(rowid, content, concept, entity) SELECT pos, ifnull(content, ''),
           ifnull(concept, ''), ifnull(entity, '') FROM loaded""",
    """INSERT INTO facts SELECT row_number() OVER (ORDER BY confidence IS NULL,
           confidence DESC, pos) - 1, pos, memory_id, content, concept, entity,
           confidence, created_at FROM loaded""",
    "CREATE VIRTUAL TABLE temp.vocab USING fts5vocab(main, grams, 'col')",
    "INSERT INTO gram_docs SELECT term, col, doc FROM temp.vocab",
)


def _orderable(confidence: Any, created_at: Any) -> bool:
    """A confidence and time the ORDER BYs compare as Python does (no NULL, no NaN)."""
    is_number = isinstance(confidence, float) and confidence == confidence
    return is_number and isinstance(created_at, str)


def _build(graph: GraphStore, agent: str, target: Path, fingerprint: str) -> None:
    """Read every fact of ``agent`` (lowered by the store itself) into a new index file."""
    target.parent.mkdir(parents=True, exist_ok=True)
    handle, staging = tempfile.mkstemp(prefix=target.name, suffix=".building", dir=target.parent)
    os.close(handle)
    try:
        db = open_sqlite(staging)
        db.execute("PRAGMA journal_mode=OFF")
        db.execute("PRAGMA synchronous=OFF")
        db.execute("PRAGMA cache_size=-131072")  # 128 MiB while building
        for statement in _SCHEMA:
            db.execute(statement)
        count, orderable = 0, True
        end = graph.rows("MATCH (m:SemanticMemory) RETURN max(offset(id(m)))")[0][0]
        for low in range(0, -1 if end is None else end + 1, _BATCH):
            params = {"agent": agent, "low": low, "high": low + _BATCH}
            rows = graph.rows(_FACTS, params)
            count += len(rows)
            orderable = orderable and all(_orderable(r[5], r[6]) for r in rows)
            db.executemany("INSERT INTO loaded VALUES (?, ?, ?, ?, ?, ?, ?)", [r[:7] for r in rows])
            db.executemany(
                "INSERT INTO stored VALUES (?, ?, ?, ?, ?, ?)", [(r[0], *r[7:]) for r in rows]
            )
        for statement in _FINISH:
            db.execute(statement)
        meta = {"format": _FORMAT, "fingerprint": fingerprint, "agent": agent}
        meta |= {"facts": str(count), "orderable": "1" if orderable else "0"}
        db.executemany("INSERT INTO meta VALUES (?, ?)", meta.items())
        db.commit()
        db.close()
        replace_file(Path(staging), target)  # 0o600, as mkstemp made it
    finally:
        if os.path.exists(staging):
            os.remove(staging)


def _index_file(path: Path, agent: str) -> Path:
    key = hashlib.sha256(f"{path.resolve()}\x00{agent}".encode()).hexdigest()[:24]
    return index_cache_root() / f"{key}.sqlite"


def _open(file: Path, fingerprint: str, agent: str) -> KeywordIndex | None:
    """The index in ``file`` when it was built from this very store state, else None."""
    if not file.exists():
        return None
    db = open_sqlite_mode_ro(file, any_thread=True)
    try:
        meta = dict(db.execute("SELECT key, value FROM meta").fetchall())
    except SqliteDatabaseError:
        db.close()
        return None
    wanted = {"format": _FORMAT, "fingerprint": fingerprint, "agent": agent}
    if any(meta.get(key) != value for key, value in wanted.items()):
        db.close()
        return None
    return KeywordIndex(db, int(meta["facts"]), meta["orderable"] == "1")


_OPEN: dict[tuple[str, str], tuple[str, KeywordIndex]] = {}
_LOCK = threading.Lock()


def index_is_current(graph: GraphStore, agent: str) -> bool:
    """Whether a query would find the index built (False: it would build it first)."""
    fingerprint = store_fingerprint(Path(graph.path))
    held = _OPEN.get((str(Path(graph.path).resolve()), agent))
    if held and held[0] == fingerprint:
        return True
    index = _open(_index_file(Path(graph.path), agent), fingerprint, agent)
    if index is not None:
        index.db.close()
    return index is not None


def open_index(graph: GraphStore, agent: str) -> KeywordIndex | None:
    """The agent's current index, built first when missing or older than the store;
    None when it cannot be built here (no room in the cache): the profiles then scan."""
    path = Path(graph.path)
    key = (str(path.resolve()), agent)
    with _LOCK:
        fingerprint = store_fingerprint(path)
        held = _OPEN.get(key)
        if held and held[0] == fingerprint:
            return held[1]
        file = _index_file(path, agent)
        index = _open(file, fingerprint, agent)
        if index is None:
            try:
                _build(graph, agent, file, fingerprint)
            except (OSError, SqliteError):
                return None
            index = _open(file, fingerprint, agent)
        if index is None:
            return None
        if held:
            held[1].db.close()
        _OPEN[key] = (fingerprint, index)
        return index
