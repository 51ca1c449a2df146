"""Open the flat session memory store a backend choice names."""

from __future__ import annotations

from pathlib import Path

from memexplorer.memory.flat_graph import GraphFlatStore
from memexplorer.memory.flat_memory import SqliteFlatStore
from memexplorer.memory.flat_store_base import FlatMemoryStore
from memexplorer.storage.backend_choice import Backend, BackendResolution

__all__ = ["open_flat_store"]


def open_flat_store(
    target: BackendResolution | tuple[Backend, str | Path], *, read_only: bool = True
) -> FlatMemoryStore:
    """The store for a resolved backend (or a ``(backend, path)`` pair).

    Read-only unless the caller is about to write; a missing store is an error
    when reading and is created (0o600, folder 0o700) when writing.
    """
    if isinstance(target, BackendResolution):
        backend, path = target.backend, target.path
    else:
        backend, path = target
    if backend == "sqlite":
        return SqliteFlatStore(path, read_only=read_only)
    return GraphFlatStore(path, read_only=read_only)
