"""Check a flat store's path before either backend opens it.

A symlink is never followed (a link must not lead a read, or a write, outside
the home the operator named), a missing store is reported with what to do,
and a file written by the other engine is named instead of being handed to
the wrong one.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from memexplorer.storage.backend_choice import anything_at
from memexplorer.storage.exceptions import (
    InvalidInputError,
    StoreNotFoundError,
    UnsupportedEngineError,
)
from memexplorer.storage.graph_open import require_graph_readable
from memexplorer.storage.stores import sniff

__all__ = ["require_flat_target"]

_OTHER = {"sqlite": "graph-db", "kuzu": "sqlite"}


def require_flat_target(path: Path, engine: Literal["sqlite", "kuzu"], *, create: bool) -> bool:
    """Raise unless ``path`` can be opened as a flat ``engine`` store.

    Returns True when the store does not exist yet and ``create`` allows
    making it; False when an existing store of the right engine is there.
    """
    if anything_at(path) and path.is_symlink():
        raise InvalidInputError(
            f"The flat memory store is a symlink, which memexplorer does not follow: {path}",
            hint="Point memexplorer at the real file (--home, or AMPLIHACK_GRAPH_DB_PATH).",
        )
    if not anything_at(path):
        if create:
            return True
        backend = "sqlite" if engine == "sqlite" else "graph-db"
        raise StoreNotFoundError(
            path,
            f"No {backend} flat memory store here",
            hint=f"Check --home, or choose the other backend with --backend {_OTHER[engine]}.",
        )
    fmt = sniff(path)
    if engine == "sqlite" and fmt.engine != "sqlite":
        raise UnsupportedEngineError(
            path,
            f"This is a {fmt.label} store, not a SQLite flat memory file",
            hint="Open it with --backend graph-db.",
        )
    if engine == "kuzu":
        if fmt.engine == "sqlite":
            raise UnsupportedEngineError(
                path,
                "This is a SQLite file, not a graph-db flat memory store",
                hint="Open it with --backend sqlite.",
            )
        require_graph_readable(fmt)
    return False
