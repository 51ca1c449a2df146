"""The engine's one family of exceptions.

Every error the engine raises on purpose derives from :class:`MemoryError`
(the reference library's name for its base class). Each carries a short
``title`` and a ``hint`` that tells the operator what to do, so the app and the
CLI can show any of them the same way. Errors that the reference API promises
as ``ValueError`` or ``TypeError`` also derive from those built-ins.
"""

from __future__ import annotations

from pathlib import Path

__all__ = [
    "AgentNameError",
    "CheckpointInProgressError",
    "CompactionError",
    "CorruptStoreError",
    "EngineCacheError",
    "EngineError",
    "EngineWorkerError",
    "ExperienceNotFoundError",
    "FileWriteError",
    "ImportDataError",
    "InvalidExperienceError",
    "InvalidInputError",
    "LegacyStoreError",
    "MemoryError",
    "MemoryQuotaExceededError",
    "NotAStoreError",
    "QueryCostExceededError",
    "ReadOnlyStoreError",
    "SchemaMismatchError",
    "SecurityViolationError",
    "StoreBusyError",
    "StoreChangedError",
    "StoreClosedError",
    "StoreLockedError",
    "StoreNotFoundError",
    "StorePermissionError",
    "StoreUpgradeRequired",
    "UnreplayableLogError",
    "UnsupportedEngineError",
    "WritesDisabledError",
]


class MemoryError(Exception):
    """Base of every error the engine raises on purpose."""

    title = "Memory engine error"
    hint = ""

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message)
        if hint is not None:
            self.hint = hint

    @property
    def message(self) -> str:
        return str(self.args[0]) if self.args else ""

    def describe(self) -> str:
        """The message followed by what to do, for display."""
        return f"{self.message}\n{self.hint}" if self.hint else self.message


EngineError = MemoryError


class EngineCacheError(MemoryError):
    """Adding, listing or removing an engine release in memexplorer's cache failed;
    nothing half-installed is left behind."""

    title = "Engine release not installed"


class ExperienceNotFoundError(MemoryError):
    title = "Experience not found"


class InvalidExperienceError(MemoryError, ValueError):
    title = "Invalid experience"


class MemoryQuotaExceededError(MemoryError):
    title = "Storage quota exceeded"
    hint = "Raise max_memory_mb, or remove old experiences (memexplorer clean)."


class SecurityViolationError(MemoryError):
    title = "Not allowed"


class QueryCostExceededError(MemoryError):
    title = "Query too expensive"


class InvalidInputError(MemoryError, ValueError):
    title = "Invalid input"


class AgentNameError(MemoryError, ValueError):
    title = "Invalid agent name"
    hint = (
        "Agent names are 1-64 characters: letters, digits, '-' and '_', "
        "starting with a letter or digit."
    )


class StoreError(MemoryError):
    """An error about one store on disk; ``path`` names it."""

    title = "Store error"

    def __init__(self, path: str | Path, message: str, *, hint: str | None = None) -> None:
        self.path = Path(path)
        super().__init__(f"{message}: {self.path}", hint=hint)


class StoreNotFoundError(StoreError, FileNotFoundError):
    title = "No such store"
    hint = "Check the path; stores are Kuzu files, SQLite files or amplihack home folders."


class NotAStoreError(StoreError):
    title = "Not a memory store"
    hint = "Point memexplorer at a Kuzu or SQLite memory store, an agent folder or a home."


class CorruptStoreError(StoreError):
    title = "Damaged store"
    hint = "The file is truncated or damaged. Restore it from a backup; nothing was changed."


class UnsupportedEngineError(StoreError):
    """No engine at hand opens this store. ``add_command`` is the command that
    installs the release that does into memexplorer's cache, when one would."""

    title = "Store needs another engine"

    def __init__(
        self, path: str | Path, message: str, *, hint: str | None = None, add_command: str = ""
    ) -> None:
        self.add_command = add_command
        super().__init__(path, message, hint=hint)


class StoreUpgradeRequired(StoreError):
    """Opening for writing would rewrite the store in a newer storage version,
    which the release that wrote it could no longer open."""

    title = "Writing would upgrade the store"

    def __init__(
        self, path: str | Path, message: str, *, found: int, installed: int, hint: str | None = None
    ) -> None:
        self.found = found
        self.installed = installed
        super().__init__(path, message, hint=hint)


class UnreplayableLogError(StoreError):
    """A writer stopped without closing, and its log is in an older storage version
    than the installed ladybug replays. The store is not damaged: the release that
    wrote it replays the log. Raised only by :func:`~.graph_open.open_graph_store`."""

    title = "Writer stopped without closing"

    def __init__(
        self, path: str | Path, message: str, *, found: int, installed: int, log_bytes: int,
        hint: str | None = None,
    ) -> None:  # fmt: skip
        self.found = found
        self.installed = installed
        self.log_bytes = log_bytes
        super().__init__(path, message, hint=hint)


class EngineWorkerError(StoreError):
    title = "Database process stopped"
    hint = (
        "The process that serves this store stopped. Calls that had finished are "
        "kept; open the store again to go on."
    )


class StoreLockedError(StoreError):
    title = "Store is in use"
    hint = (
        "Another process (probably a running agent) holds this store for writing. "
        "Stop that process, or retry when it has finished; memexplorer did not touch the file."
    )


class CheckpointInProgressError(StoreLockedError):
    """A writer's checkpoint is under way (its log and shadow pages are beside the
    store), which a read-only open cannot replay. It lasts milliseconds unless the
    writer stopped midway, so read-only opens wait for it a moment first."""

    title = "A writer is checkpointing this store"


class StoreBusyError(StoreError):
    """Another memexplorer writer holds the store's write gate (see write_gate.py).

    Distinct from :class:`StoreLockedError`, which is the database engine's own
    lock (usually the agent itself holding the file)."""

    title = "Store is busy"

    def __init__(self, path: str | Path, holder: dict[str, object]) -> None:
        self.holder = holder
        pid = holder.get("pid")
        self.pid = pid if isinstance(pid, int) else None
        command = holder.get("command") or "an unknown command"
        action = holder.get("action") or "a write"
        since = holder.get("started_at") or "an unknown time"
        who = f"PID {self.pid}" if self.pid is not None else "a process whose PID is unknown"
        super().__init__(
            path,
            f"Another memexplorer process is writing this store ({who}, {action} since "
            f"{since}: {command})",
            hint=(
                f"Wait for it to finish and run this again, or stop it (kill {self.pid}) "
                "if it is stuck. Nothing was changed by this command."
                if self.pid is not None
                else "Wait for the other writer to finish and run this again. Nothing was changed."
            ),
        )


class WritesDisabledError(StoreError):
    """Writes are refused in this process (``MEMEXPLORER_READ_ONLY=1``)."""

    title = "Writes are disabled"
    hint = (
        "This memexplorer runs read-only (memexplorer serve sets MEMEXPLORER_READ_ONLY=1 "
        "for the app it serves). Run the change from a terminal instead: `memexplorer PATH` "
        "or the matching command. Nothing was changed."
    )


class LegacyStoreError(StoreError):
    """A write to a legacy ``kuzu_db`` store that the Rust layout replaced by ``graph_db``."""

    title = "Legacy store is read-only"


class StoreChangedError(StoreError):
    """The store's files moved while a write prepared its staged copy."""

    title = "Store changed meanwhile"
    hint = (
        "Another process (probably the agent) wrote to the store while this change was "
        "being prepared, so the prepared copy was not put in its place and nothing was "
        "lost. Run the change again, ideally with the agent stopped."
    )


class FileWriteError(StoreError):
    """A file could not be written (a full disk, a quota, an I/O error); ``path``
    names the file that was being written."""

    title = "Could not write the file"
    hint = (
        "Free some space (or choose another folder) and run it again; the half-written "
        "copy was removed and nothing was put in place."
    )


class StorePermissionError(StoreError, PermissionError):
    title = "Permission denied"
    hint = "Choose a folder you can write to, or run as a user who may write this one."


class StoreClosedError(StoreError):
    title = "Store is closed"
    hint = "Open it again (a new MemoryConnector or ExperienceStore) to keep using it."


class ReadOnlyStoreError(StoreError):
    title = "Store is open read-only"
    hint = "Open the store for writing to change it."


class SchemaMismatchError(StoreError):
    title = "Unexpected schema"


class CompactionError(StoreError):
    """A store could not be rewritten into a fresh file, or the copy differed."""

    title = "Compaction refused"
    hint = "The store was not changed; its rows and any backup are as they were."


class ImportDataError(MemoryError, ValueError):
    title = "Bad import data"
    hint = "Use a file written by export_to_json() (format 1.0) or memexplorer export (1.1)."
