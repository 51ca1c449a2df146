"""MemoryConnector: one agent's experience store, on SQLite (the default) or Kuzu.

The reference library's public class, with its defaults and paths (API §3, §7):
``storage_path`` defaults to ``~/.amplihack/memory/<agent_name>``; the SQLite
backend uses ``<storage_path>/experiences.db`` (WAL mode), the Kuzu backend
``<storage_path>/kuzu_db``. ``backend`` defaults to ``"sqlite"``, as the
reference code does and the stores on disk show (its docs say "kuzu").

An existing store opens read-only and switches to writing on the first write,
so pointing a connector at a running agent's store changes nothing until you
store something. Several agents may share one ``storage_path``; each sees
only its own rows. All methods are thread-safe; after :meth:`close` every
call raises :class:`StoreClosedError`.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from memexplorer.memory.experience import Experience, ExperienceType
from memexplorer.memory.experience_backend import (
    ExperienceFilter,
    MemoryBackend,
    Retention,
    checked_filter,
)
from memexplorer.memory.experience_search import ExperienceSearch
from memexplorer.storage.exceptions import (
    AgentNameError,
    InvalidInputError,
    StoreClosedError,
    StoreError,
    StorePermissionError,
)
from memexplorer.storage.names import validate_agent_name

__all__ = ["BACKENDS", "DEFAULT_BACKEND", "MemoryConnector", "default_storage_path"]

#: Backend tokens MemoryConnector accepts.
BACKENDS = ("sqlite", "kuzu")
DEFAULT_BACKEND = "sqlite"
_FILES = {"sqlite": "experiences.db", "kuzu": "kuzu_db"}


def default_storage_path(agent_name: str) -> Path:
    """``~/.amplihack/memory/<agent_name>`` (the name checked to be a safe folder name)."""
    return Path.home() / ".amplihack" / "memory" / validate_agent_name(agent_name)


def _clean_name(agent_name: object) -> str:
    """Any non-blank text, stripped (a column value; folder names are checked apart)."""
    if not isinstance(agent_name, str) or not agent_name.strip():
        raise AgentNameError("agent_name cannot be empty")
    return agent_name.strip()


def _make_folder(path: Path) -> None:
    try:
        path.mkdir(mode=0o700, parents=True, exist_ok=True)
    except PermissionError:
        raise StorePermissionError(path, "Cannot create the storage directory") from None
    except FileExistsError:
        raise StoreError(
            path, "A file is in the way of the storage directory", hint="Choose another path."
        ) from None
    except OSError as exc:
        raise StoreError(path, f"Cannot create the storage directory ({exc.strerror})") from None


class MemoryConnector(ExperienceSearch):
    """Stores, retrieves and searches one agent's experiences.

    Attributes (as the reference): ``agent_name``, ``storage_path`` (the Path
    given, or the default), ``max_memory_mb``, ``enable_compression``,
    ``backend_type`` ("sqlite" or "kuzu") and ``db_path``.
    """

    def __init__(
        self,
        agent_name: str,
        storage_path: str | Path | None = None,
        max_memory_mb: int = 100,
        enable_compression: bool = True,
        backend: str = DEFAULT_BACKEND,
    ) -> None:
        self.agent_name = _clean_name(agent_name)
        if isinstance(max_memory_mb, bool) or not isinstance(max_memory_mb, int | float):
            raise InvalidInputError(f"max_memory_mb must be a number, got {max_memory_mb!r}")
        if max_memory_mb <= 0:
            raise InvalidInputError(f"max_memory_mb must be positive, got {max_memory_mb}")
        if backend not in BACKENDS:
            raise InvalidInputError(
                f"Unknown backend: {backend!r}. Use 'kuzu' or 'sqlite'.",
                hint="Backend tokens are 'sqlite' (the default) and 'kuzu'.",
            )
        self.max_memory_mb = max_memory_mb
        self.enable_compression = bool(enable_compression)
        self.backend_type = backend
        if storage_path is None:
            self.storage_path = default_storage_path(self.agent_name)
        else:
            self.storage_path = Path(storage_path)
        folder = self.storage_path.expanduser()
        _make_folder(folder)
        self.db_path = folder / _FILES[backend]
        self._lock = threading.RLock()
        self._backend: MemoryBackend | None = self._open_backend()

    def _open_backend(self) -> MemoryBackend:
        # Imported here so a SQLite connector never loads kuzu (and stays fast).
        if self.backend_type == "kuzu":
            from memexplorer.memory.experience_kuzu import KuzuExperienceBackend

            return KuzuExperienceBackend(self.db_path, self.agent_name)
        from memexplorer.memory.experience_sqlite import SQLiteExperienceBackend

        return SQLiteExperienceBackend(self.db_path, self.agent_name)

    # -- the backend ---------------------------------------------------------------------
    @property
    def backend(self) -> MemoryBackend:
        """The open backend; raises :class:`StoreClosedError` after close()."""
        backend = self._backend
        if backend is None:
            raise StoreClosedError(self.db_path, "This MemoryConnector has been closed")
        return backend

    @property
    def read_only(self) -> bool:
        """True until the first write reopens an existing store for writing."""
        return self.backend.read_only

    @property
    def closed(self) -> bool:
        return self._backend is None

    @property
    def _connection(self) -> Any:
        """The underlying sqlite3 connection or Kuzu store (as the reference exposes)."""
        backend = self.backend
        return getattr(backend, "connection", None) or getattr(backend, "graph", None)

    # -- the API -------------------------------------------------------------------------
    def store_experience(self, experience: Experience) -> str:
        """Store one experience; returns its id."""
        with self._lock:
            return self.backend.store_experience(experience)

    def store_experiences(self, experiences: list[Experience]) -> list[str]:
        """Store several experiences in one transaction (all or none)."""
        with self._lock:
            return self.backend.store_experiences(list(experiences))

    def retrieve_experiences(
        self,
        limit: int | None = None,
        experience_type: ExperienceType | None = None,
        min_confidence: float = 0.0,
    ) -> list[Experience]:
        """This agent's experiences, newest first."""
        wanted = checked_filter(limit, experience_type, min_confidence)
        with self._lock:
            return self.backend.retrieve(wanted, limit)

    def _matches(self, query: str, wanted: ExperienceFilter, limit: int | None) -> list[Experience]:
        with self._lock:
            return self.backend.search(query, wanted, limit)

    def get_statistics(self) -> dict[str, Any]:
        """total_experiences, by_type, storage_size_kb, compressed_experiences."""
        with self._lock:
            return self.backend.get_statistics()

    def cleanup(
        self,
        auto_compress: bool = True,
        max_age_days: int | None = None,
        max_experiences: int | None = None,
    ) -> None:
        """Compress experiences older than 30 days, then apply the age and count limits."""
        with self._lock:
            self.backend.cleanup(Retention(auto_compress, max_age_days, max_experiences))

    def close(self) -> None:
        """Close the store; safe to call twice."""
        with self._lock:
            backend, self._backend = self._backend, None
            if backend is not None:
                backend.close()

    def __enter__(self) -> MemoryConnector:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "closed" if self._backend is None else "open"
        return (
            f"MemoryConnector(agent_name={self.agent_name!r}, backend={self.backend_type!r}, "
            f"db_path={str(self.db_path)!r}, {state})"
        )
