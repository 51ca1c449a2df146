"""The transfer formats' names, apart from the transfer code: the CLI's parser
lists them as choices without loading the engines."""

from __future__ import annotations

from typing import Literal

__all__ = ["FORMATS", "Format"]

Format = Literal["json", "graph", "raw-db"]
#: The spec's format tokens; ``kuzu`` is its backward-compatible alias of raw-db.
#: ``graph`` is seed 003's export_graph() shape (:mod:`.graph_shape`).
FORMATS: dict[str, Format] = {
    "json": "json",
    "graph": "graph",
    "raw-db": "raw-db",
    "kuzu": "raw-db",
}
