"""Completes file paths typed into an Input: the first entry of the folder that starts
with what was typed (folders end in /), so export and import paths need no picker."""

from __future__ import annotations

import asyncio
import os
from itertools import islice
from pathlib import Path

from textual.suggester import Suggester

#: Entries read from one folder at most, so a huge folder never stalls a keystroke.
MAX_ENTRIES = 5_000


def complete_path(typed: str) -> str | None:
    """``typed`` plus the rest of the first matching name, or None.

    ``~`` is expanded for the lookup but kept in the answer; hidden entries are
    offered only when the typed name starts with a dot.
    """
    folder_text, _, prefix = typed.rpartition("/")
    folder = Path(os.path.expanduser(folder_text + "/" if folder_text else "."))
    if typed.startswith("/") and not folder_text:
        folder = Path("/")
    try:
        with os.scandir(folder) as entries:
            names = sorted(
                entry.name + ("/" if entry.is_dir() else "")
                for entry in islice(entries, MAX_ENTRIES)
                if entry.name.startswith(prefix)
                and (prefix.startswith(".") or not entry.name.startswith("."))
            )
    except OSError:
        return None
    names = [name for name in names if name != prefix]
    return typed + names[0][len(prefix) :] if names else None


class PathSuggester(Suggester):
    """Suggests from the file system as it is now (no cache: folders change)."""

    def __init__(self) -> None:
        super().__init__(use_cache=False, case_sensitive=True)

    async def get_suggestion(self, value: str) -> str | None:
        if not value:
            return None
        return await asyncio.to_thread(complete_path, value)
