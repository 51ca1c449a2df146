"""Histories of past queries, kept across restarts: the query box's and the console's.

One JSON object a line in ``$XDG_DATA_HOME/memexplorer/query_history.jsonl`` (the
console's in ``console_history.jsonl``; ``~/.local/share/memexplorer/`` without
XDG_DATA_HOME). A line holds the query text, the agent (empty for the console,
which works on a whole store) and the store path, nothing else: no results, no node content,
since stores may hold secrets. The file is private (0o600, its folder 0o700), at
most :data:`HISTORY_LIMIT` lines, and rewritten whole through a temporary file, so
a crash leaves the old history or the new one, never half of it.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path

from memexplorer.storage import user_folders
from memexplorer.storage.atomic_files import atomic_file
from memexplorer.storage.exceptions import MemoryError

__all__ = [
    "CONSOLE_FILE_NAME",
    "HISTORY_LIMIT",
    "HistoryEntry",
    "HistoryError",
    "QueryHistory",
    "data_folder",
]

#: The newest queries kept; older ones are dropped when a new one is added.
HISTORY_LIMIT = 500
FILE_NAME = "query_history.jsonl"
CONSOLE_FILE_NAME = "console_history.jsonl"


class HistoryError(MemoryError):
    title = "Query history unavailable"
    hint = "Check that the folder is yours and writable, or set XDG_DATA_HOME elsewhere."


def write_private_text(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` whole or not at all, readable by the user only, in a
    0700 folder; HistoryError (what failed, where) when the system refuses."""
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        with atomic_file(path, text=True) as out:
            out.write(text)
    except OSError as exc:
        raise HistoryError(f"Cannot write {path}: {exc.strerror or exc}") from None


@dataclass(frozen=True)
class HistoryEntry:
    query: str
    agent: str
    store: str


def data_folder() -> Path:
    """memexplorer's user data folder (:mod:`memexplorer.storage.user_folders`)."""
    return user_folders.data_folder()


def _parse(line: str) -> HistoryEntry | None:
    try:
        data = json.loads(line)
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    fields = [data.get(key) for key in ("query", "agent", "store")]
    if not all(isinstance(value, str) for value in fields) or not str(fields[0]).strip():
        return None
    return HistoryEntry(*fields)  # type: ignore[arg-type]


class QueryHistory:
    """Past queries, oldest first; a repeated query moves to the end."""

    def __init__(
        self, path: Path | None = None, limit: int = HISTORY_LIMIT, *, name: str = FILE_NAME
    ) -> None:
        self.path = path or data_folder() / name
        self.limit = limit

    def load(self) -> list[HistoryEntry]:
        """Every readable entry (unreadable lines are skipped; no file is no history)."""
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return []
        except OSError as exc:
            raise HistoryError(f"Cannot read {self.path}: {exc.strerror}") from None
        entries = (_parse(line) for line in text.splitlines() if line.strip())
        return [entry for entry in entries if entry is not None][-self.limit :]

    def add(self, entry: HistoryEntry) -> list[HistoryEntry]:
        """Record a query and return the history with it."""
        entries = [e for e in self.load() if e != entry] + [entry]
        entries = entries[-self.limit :]
        self._write(entries)
        return entries

    def _write(self, entries: list[HistoryEntry]) -> None:
        text = "".join(json.dumps(asdict(entry), ensure_ascii=False) + "\n" for entry in entries)
        write_private_text(self.path, text)

    @staticmethod
    def matching(entries: list[HistoryEntry], text: str) -> list[HistoryEntry]:
        """Newest first, those whose query contains every word of ``text`` (any case)."""
        words = text.lower().split()
        return [e for e in reversed(entries) if all(w in e.query.lower() for w in words)]
