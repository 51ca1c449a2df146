"""What every memory class does with the open store it holds: hand it out, say
whether it is read-only, refuse once closed, close on leaving a ``with`` block.

HierarchicalMemory holds a GraphStore of its own, CognitiveMemory a share of one
(:mod:`memexplorer.storage.shared_graph`); both reach it through :class:`GraphHandle`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Generic, Protocol, Self, TypeVar

from memexplorer.storage.exceptions import ReadOnlyStoreError

__all__ = ["GraphHandle"]


class _OpenStore(Protocol):
    @property
    def read_only(self) -> bool: ...


G = TypeVar("G", bound=_OpenStore)


class GraphHandle(Generic[G]):
    """The store a memory holds (``_graph``, None once closed) and its lifecycle."""

    db_path: Path
    _graph: G | None

    @property
    def graph(self) -> G:
        """The open store (for queries the API does not cover)."""
        if self._graph is None:
            raise ReadOnlyStoreError(self.db_path, "This memory is closed")
        return self._graph

    @property
    def read_only(self) -> bool:
        return self.graph.read_only

    def close(self) -> None:
        raise NotImplementedError

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
