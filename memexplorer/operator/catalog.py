"""What is under a folder, for the app's store list: every store with its kind,
engine and agents, or the reason it cannot be read (locked, LadybugDB, corrupt).

One unreadable store never hides the others.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from memexplorer.memory.inspection import StoreSummary, summarize_store
from memexplorer.storage.exceptions import MemoryError, StoreLockedError, UnsupportedEngineError
from memexplorer.storage.stores import StoreFormat, find_stores

__all__ = ["StoreEntry", "list_stores"]

State = Literal["ok", "locked", "unsupported", "error"]


@dataclass(frozen=True)
class StoreEntry:
    """One store found under the root, readable or not."""

    format: StoreFormat
    summary: StoreSummary | None
    state: State
    error: MemoryError | None = None

    @property
    def path(self) -> Path:
        return self.format.path

    @property
    def kind(self) -> str:
        return self.summary.kind if self.summary else "unknown"

    @property
    def agents(self) -> dict[str, dict[str, int]]:
        return self.summary.agents if self.summary else {}


def _entry(fmt: StoreFormat) -> StoreEntry:
    try:
        return StoreEntry(fmt, summarize_store(fmt), "ok")
    except StoreLockedError as exc:
        return StoreEntry(fmt, None, "locked", exc)
    except UnsupportedEngineError as exc:
        return StoreEntry(fmt, None, "unsupported", exc)
    except MemoryError as exc:
        return StoreEntry(fmt, None, "error", exc)


def list_stores(root: str | Path) -> list[StoreEntry]:
    """Every store at or under ``root``, read-only, in path order."""
    return [_entry(fmt) for fmt in sorted(find_stores(root), key=lambda f: str(f.path))]
