"""The one interface both flat backends implement, and what it does for both.

Callers (the tree, clean, the app) hold a :class:`FlatMemoryStore` and never ask
which backend is open. The public signatures live here once; a backend receives
a query's filters as a :class:`MemoryFilter` and a new memory as a
:class:`Learning`, and checks them itself, in its own order.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Literal, Self

from memexplorer.memory.flat_model import (
    DEFAULT_LEARNING_TYPE,
    DeletedSessions,
    FlatMemory,
    FlatSession,
)
from memexplorer.memory.flat_target import require_flat_target
from memexplorer.storage.exceptions import ReadOnlyStoreError

__all__ = ["FlatMemoryStore", "Learning", "MemoryFilter"]


@dataclass(frozen=True)
class MemoryFilter:
    """Which live memories a listing or count is about (None: any)."""

    session_id: str | None = None
    memory_type: str | None = None
    agent_id: str | None = None


@dataclass(frozen=True)
class Learning:
    """One memory to store, as ``store_session_learning`` was given it."""

    session_id: str
    agent_id: str
    content: str
    title: str = ""
    memory_type: str = DEFAULT_LEARNING_TYPE
    importance: int | None = None
    confidence: float | None = None
    tags: Iterable[str] = ()  # as given: an empty generator still stores "[]"
    metadata: dict[str, Any] | None = None
    expires_at: datetime | None = field(default=None)


class FlatMemoryStore(ABC):
    """A flat session store: sessions, their live memories, and the two writes."""

    backend: str
    #: The engine whose file :func:`.require_flat_target` expects at ``path``.
    engine: Literal["sqlite", "kuzu"]

    def __init__(self, path: str | Path, *, read_only: bool = True) -> None:
        self.path = Path(path)
        self.read_only = read_only
        created = require_flat_target(self.path, self.engine, create=not read_only)
        if created:
            self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        self._open(created=created)

    @abstractmethod
    def list_sessions(self) -> list[FlatSession]: ...

    def list_memories(
        self,
        *,
        session_id: str | None = None,
        memory_type: str | None = None,
        agent_id: str | None = None,
        limit: int | None = None,
        offset: int = 0,
    ) -> list[FlatMemory]:
        """Live memories, most recently accessed first, one page at a time."""
        wanted = MemoryFilter(session_id, memory_type, agent_id)
        return self._list_memories(wanted, limit, max(offset, 0))

    def count_memories(
        self,
        *,
        session_id: str | None = None,
        memory_type: str | None = None,
        agent_id: str | None = None,
    ) -> int:
        """How many live memories :meth:`list_memories` would list without a limit."""
        return self._count_memories(MemoryFilter(session_id, memory_type, agent_id))

    @abstractmethod
    def agent_counts(self) -> dict[str, int]: ...

    @abstractmethod
    def memory_types(self) -> list[str]: ...

    def store_session_learning(
        self,
        session_id: str,
        agent_id: str,
        content: str,
        *,
        title: str = "",
        memory_type: str = DEFAULT_LEARNING_TYPE,
        importance: int | None = None,
        confidence: float | None = None,
        tags: Iterable[str] = (),
        metadata: dict[str, Any] | None = None,
        expires_at: datetime | None = None,
    ) -> str | None:
        """Store one memory and return its id; an identical (session, agent, content)
        already stored gives None."""
        learning = Learning(
            session_id, agent_id, content, title, memory_type, importance, confidence,
            tags, metadata, expires_at,
        )  # fmt: skip
        return self._store_learning(learning)

    @abstractmethod
    def delete_sessions(self, session_ids: Iterable[str]) -> DeletedSessions:
        """Remove these sessions and all their memories (expired ones too), atomically."""

    @abstractmethod
    def close(self) -> None: ...

    def _require_writable(self) -> None:
        if self.read_only:
            raise ReadOnlyStoreError(self.path, "This store is open read-only")

    # -- what each backend supplies ---------------------------------------------------
    @abstractmethod
    def _open(self, *, created: bool) -> None:
        """Open the store at ``path``; ``created``: its file is new, so write its schema."""

    @abstractmethod
    def _list_memories(
        self, wanted: MemoryFilter, limit: int | None, offset: int
    ) -> list[FlatMemory]: ...

    @abstractmethod
    def _count_memories(self, wanted: MemoryFilter) -> int: ...

    @abstractmethod
    def _store_learning(self, learning: Learning) -> str | None: ...

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
