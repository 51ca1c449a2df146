"""Auto-detection of the flat memory backend, as amplihack-rs does it.

``resolve_backend_with_autodetect()`` (amplihack-rs cli_memory/resolve.rs), after
``AMPLIHACK_MEMORY_BACKEND`` (which :mod:`.backend_choice` reads first), probes
only ``<home>/hierarchical_memory``, rule by rule:

1. absent (``symlink_metadata`` fails) -> sqlite, a fresh install;
2. unreadable (a file, no permission) -> an error;
3. each entry, in directory order: a symlink -> an error (never followed);
   a folder holding ``graph_db`` (anything by that name, a link included) -> graph-db;
4. nothing found -> sqlite.

``memory_graph.db``, ``kuzu_db`` and ``<agent>.db`` files select nothing. Entries
are taken in name order, one of the orders a directory listing may give.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal

from memexplorer.storage.exceptions import InvalidInputError

__all__ = ["BackendProbeError", "autodetect_backend"]


class BackendProbeError(InvalidInputError):
    title = "Backend auto-detection refused"
    hint = (
        "Name the backend instead: --backend sqlite or --backend graph-db "
        "(or set AMPLIHACK_MEMORY_BACKEND)."
    )


def autodetect_backend(home: Path) -> tuple[Literal["sqlite", "graph-db"], str]:
    """The backend the probe of ``home`` selects and why; raises BackendProbeError
    where amplihack-rs returns an error."""
    folder = Path(home) / "hierarchical_memory"
    if not os.path.lexists(folder):
        return "sqlite", f"{folder} does not exist: a new install, sqlite is the default"
    try:
        entries = sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError as exc:
        raise BackendProbeError(f"failed to read directory {folder}: {exc.strerror}") from exc
    for entry in entries:
        if entry.is_symlink():
            raise BackendProbeError(
                f"symlink detected in backend probe path {entry.path}; "
                "refusing to follow it for security"
            )
        marker = Path(entry.path) / "graph_db"
        if entry.is_dir(follow_symlinks=False) and os.path.lexists(marker):
            return "graph-db", f"found the hierarchical graph DB {marker}"
    return "sqlite", f"no <agent>/graph_db under {folder}: sqlite is the default"
