"""The amplihack home a store belongs to: where its backups go and are listed.

A store's backups belong beside the store's own home, wherever a command was
started: `clean --store P` wrote them to ~/.amplihack/backups, so `backups
--home` and the app, looking in P's home, never listed them.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["HOME_MARKERS", "home_of_store"]

#: Folders an amplihack home holds; a folder with any of them is a home.
HOME_MARKERS = ("hierarchical_memory", "memory", "backups", "memory.db", "memory_graph.db")


def home_of_store(store: Path) -> Path:
    """The home above ``store``: the folder holding its ``hierarchical_memory`` or
    ``memory`` folder, or the ``.amplihack`` folder it is in; else its own folder."""
    store = Path(store).expanduser().absolute()
    for parent in store.parents:
        if parent.name in ("hierarchical_memory", "memory"):
            return parent.parent
        if parent.name == ".amplihack":
            return parent
    return store.parent
