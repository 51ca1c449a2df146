"""One search across every store and agent under a home (``memexplorer grep``, ctrl+f).

The search walks the stores in path order and, in each, the searched tables
(:mod:`.find_tables`): one scan counts every agent's matching rows, then each
agent's first page follows, so results arrive store by store while the rest is
searched. Later pages are read on demand (:func:`find_page`). ``control`` is
checked between tables and pages, and a cancel also interrupts the query that
is running, so an escape stops a long scan at once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memexplorer.operator.browse import StoreBrowser, open_browser
from memexplorer.operator.find_tables import (
    FindHit,
    SearchTable,
    count_matches,
    page_matches,
    searched_tables,
)
from memexplorer.storage.exceptions import InvalidInputError, MemoryError
from memexplorer.storage.progress import OperationCancelled, TaskControl, checkpoint
from memexplorer.storage.stores import find_stores

__all__ = ["FindGroup", "FindHit", "FindSkipped", "find_page", "find_text"]

#: Hits shown per group before "more" is asked for.
PAGE_SIZE = 20
#: The longest text searched for.
MAX_TEXT = 500

Opener = Callable[[Path], StoreBrowser]


@dataclass
class FindGroup:
    """One agent's rows of one table of one store that contain the text."""

    store: Path
    store_kind: str
    agent: str
    table: SearchTable
    total: int
    hits: list[FindHit] = field(default_factory=list)

    @property
    def item(self) -> str:
        return self.table.item

    def to_dict(self) -> dict[str, Any]:
        return {
            "store": str(self.store), "store_kind": self.store_kind, "agent": self.agent,
            "table": self.table.name, "item": self.item, "key_column": self.table.key,
            "total": self.total, "hits": [hit.to_dict() for hit in self.hits],
        }  # fmt: skip


@dataclass(frozen=True)
class FindSkipped:
    """A store that could not be searched, and why (the search goes on without it)."""

    store: Path
    reason: str

    def to_dict(self) -> dict[str, str]:
        return {"store": str(self.store), "reason": self.reason}


def _text(text: str) -> str:
    text = text.strip()
    if not text:
        raise InvalidInputError("There is no text to search for", hint="Give a word or phrase.")
    if len(text) > MAX_TEXT:
        raise InvalidInputError(f"The text is {len(text)} characters; at most {MAX_TEXT}")
    return text


def _search_store(
    browser: StoreBrowser, store: Path, text: str, page: int, control: TaskControl | None
) -> Iterator[FindGroup]:
    kind, tables = searched_tables(browser)
    for table in tables:
        checkpoint(control, f"searching {store.name} {table.name}")
        for agent, total in sorted(count_matches(browser, table, text).items()):
            checkpoint(control, f"reading {agent}'s {table.name}")
            hits = page_matches(browser, table, agent, text, 0, page)
            yield FindGroup(store, kind, agent, table, total, hits)


def find_text(
    root: str | Path,
    text: str,
    *,
    open_store: Opener | None = None,
    page: int = PAGE_SIZE,
    control: TaskControl | None = None,
    skipped: list[FindSkipped] | None = None,
) -> Iterator[FindGroup]:
    """Every agent's rows containing ``text`` under ``root``, a group at a time.

    ``open_store`` opens a store for reading (default: its own read-only browser,
    closed after). Stores that cannot be read are appended to ``skipped`` and passed over."""
    text = _text(text)
    if page < 1:
        raise InvalidInputError(f"A page of {page} hits shows nothing", hint="Give 1 or more.")
    for fmt in find_stores(root):
        checkpoint(control, f"opening {fmt.path.name}")
        own = open_store is None
        try:
            browser = open_browser(fmt) if open_store is None else open_store(fmt.path)
        except MemoryError as exc:
            if skipped is not None:
                skipped.append(FindSkipped(fmt.path, exc.describe()))
            continue
        try:
            yield from _search_store(browser, fmt.path, text, page, control)
        except MemoryError as exc:
            # One store that fails mid-search (a damaged table) costs only its own
            # results; a cancel (or the query it interrupted) ends the search.
            if isinstance(exc, OperationCancelled) or (control and control.cancelled):
                raise
            if skipped is None:
                raise
            skipped.append(FindSkipped(fmt.path, exc.describe()))
        finally:
            if own:
                browser.close()


def find_page(
    browser: StoreBrowser, group: FindGroup, text: str, offset: int, limit: int = PAGE_SIZE
) -> list[FindHit]:
    """A later page of one group's hits."""
    return page_matches(browser, group.table, group.agent, _text(text), offset, limit)
