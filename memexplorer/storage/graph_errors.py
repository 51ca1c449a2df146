"""What an engine's error message means: the same wording for Kuzu and LadybugDB.

Both engines raise plain messages; these turn them into memexplorer's errors
(locked, not a store, another storage version, a checkpoint midway, damaged,
read-only), each saying what to do. :class:`QueryError` is a refused query.
"""

from __future__ import annotations

from pathlib import Path

from memexplorer.storage.exceptions import (
    CheckpointInProgressError,
    CorruptStoreError,
    MemoryError,
    NotAStoreError,
    ReadOnlyStoreError,
    StoreError,
    StoreLockedError,
    StoreNotFoundError,
    UnsupportedEngineError,
)

__all__ = ["QueryError", "translate_open_error", "translate_query_error"]

_ENGINE_NAMES = {"kuzu": "Kuzu", "ladybug": "LadybugDB"}


class QueryError(MemoryError):
    title = "Query failed"


def translate_open_error(
    path: Path, text: str, engine: str, *, read_only: bool = True
) -> StoreError:
    """Turn an engine's message raised while opening into an engine error.

    A lock refused to a read-only open means a writer holds the store (readers
    share it); refused to a writing open, any open is the holder, a reader too
    (another memexplorer, an agent reading), so the error does not say "writing".
    """
    name = _ENGINE_NAMES.get(engine, engine)
    if "Could not set lock" in text:
        if read_only:
            return StoreLockedError(path, "Another process holds this store for writing")
        return StoreLockedError(
            path,
            "Another process has this store open, so it cannot be opened for writing",
            hint=(
                "A running agent, or another program reading the store (another "
                "memexplorer, an agent's reader), has it open. Close it, or retry when "
                "it has finished; memexplorer did not touch the file."
            ),
        )
    if "not a valid Kuzu database" in text or "not a valid Lbug database" in text:
        return NotAStoreError(path, f"Not a {name} database")
    if "different version" in text:
        return UnsupportedEngineError(
            path,
            f"The installed {engine} cannot read this store's storage version "
            f"({text.splitlines()[0]})",
            hint="Open it with the release that wrote it; memexplorer migrate can copy it.",
        )
    if "replay shadow pages" in text:
        # A checkpoint's shadow file is there: a writer is checkpointing right now,
        # or stopped in the middle of it. The store is not damaged.
        return CheckpointInProgressError(
            path,
            "A writer's checkpoint is unfinished; a read-only open cannot replay it",
            hint="Retry in a moment if a writer is running; if one stopped midway, open "
            "the store once with its own tool to finish the checkpoint. Nothing was changed.",
        )
    if any(m in text for m in ("Reading past the end", "Corrupted", "Cannot read checkpoint")):
        return CorruptStoreError(path, "The store is truncated or damaged")
    if "READ ONLY mode" in text:
        return StoreNotFoundError(path, "No store at this path")
    if "Permission denied" in text:
        return StoreError(
            path, "Permission denied", hint="Run as a user who can read (and lock) the file."
        )
    return CorruptStoreError(path, f"{name} could not open the store ({text.splitlines()[0]})")


def translate_query_error(path: Path, text: str, engine: str, what: str = "a query") -> MemoryError:
    """Turn an engine's message raised by ``what`` into an engine error."""
    if "read-only database" in text:
        return ReadOnlyStoreError(path, "This store is open read-only")
    if "Interrupted" in text:
        return QueryError("The query was cancelled.")
    name = _ENGINE_NAMES.get(engine, engine)
    first = text.splitlines()[0] if text else "no message"
    return QueryError(f"{name} refused {what}: {first}", hint=f"Store: {path}")
