"""Where a node lives, the address screens pass each other to open it.

Below the screens, so the node detail, graph and chain screens (and the widgets)
name a node without importing one another.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

__all__ = ["NodeRef"]


@dataclass(frozen=True)
class NodeRef:
    """Where a node lives: its store, table and key."""

    store: Path
    table: str
    key: str
