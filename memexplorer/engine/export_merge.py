"""Putting sorted pages in one order: in memory, or through private files on disk.

:mod:`.export_pages` gives pages each sorted by the export's key; the pages
themselves overlap wherever the store's insertion order is not the export's.
:func:`merged` merges pages already in memory (the library's dict export holds
every record anyway). :func:`spill` encodes each page's records into a run
file in a private folder as the page arrives; :class:`SpilledRecords` then
merges the runs a line at a time, so writing an export holds one page, not
the whole table, in memory.
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Callable, Iterable, Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from json.decoder import scanstring
from json.encoder import encode_basestring_ascii as quote
from pathlib import Path
from typing import TextIO, TypeVar

__all__ = ["SpilledRecords", "merged", "spill"]

T = TypeVar("T")
#: A sort key: a tuple of strings, compared as Python compares them (by code point).
Key = tuple[str, ...]
_RUN_NUMBERS = itertools.count()


def merged(pages: Iterable[list[T]], key: Callable[[T], Key]) -> Iterator[T]:
    """Every item of the sorted ``pages`` in ``key`` order (all pages held)."""
    held = list(pages)
    if len(held) == 1:
        return iter(held[0])
    return heapq.merge(*held, key=key)


@dataclass(frozen=True)
class _Run:
    path: Path
    first: Key
    last: Key


class SpilledRecords:
    """Encoded JSON records kept in sorted run files: ``len()`` is how many,
    iterating gives them in order.

    A run line is the key's strings as JSON strings, then the record, separated
    by tabs (JSON text never holds a raw tab or newline). Runs that do not
    overlap (a store written in the export's order) are read one after another
    without looking at a key; others are merged on their keys.
    """

    def __init__(self, runs: list[_Run], count: int, width: int) -> None:
        self.runs = sorted(runs, key=lambda run: run.first)
        self.count = count
        self.width = width

    def __len__(self) -> int:
        return self.count

    def __iter__(self) -> Iterator[str]:
        width = self.width
        apart = all(a.last <= b.first for a, b in itertools.pairwise(self.runs))
        if apart:
            for run in self.runs:
                with open(run.path, encoding="utf-8") as handle:
                    for line in handle:
                        yield line.split("\t", width)[width].rstrip("\n")
            return
        with ExitStack() as stack:
            readers = [
                _keyed(stack.enter_context(open(run.path, encoding="utf-8")), width)
                for run in self.runs
            ]
            for _, text in heapq.merge(*readers, key=lambda pair: pair[0]):
                yield text


def _keyed(handle: TextIO, width: int) -> Iterator[tuple[Key, str]]:
    for line in handle:
        parts = line.split("\t", width)
        key = tuple(scanstring(part, 1)[0] for part in parts[:width])
        yield key, parts[width].rstrip("\n")


def spill(
    pages: Iterable[list[T]],
    key: Callable[[T], Key],
    encode: Callable[[T], str],
    folder: Path,
    on_page: Callable[[int], None] | None = None,
) -> SpilledRecords:
    """Write each sorted page of ``pages`` as ``encode``-d records to a run file in
    ``folder`` (private: the caller's, removed by the caller), one page in memory
    at a time; ``on_page`` hears how many records each page held."""
    runs: list[_Run] = []
    count = 0
    width = 0
    for page in pages:
        path = folder / f"run-{next(_RUN_NUMBERS)}"
        with open(path, "x", encoding="utf-8") as handle:
            for item in page:
                fields = key(item)
                handle.write("\t".join(map(quote, fields)) + f"\t{encode(item)}\n")
        width = len(fields)
        runs.append(_Run(path, key(page[0]), key(page[-1])))
        count += len(page)
        if on_page:
            on_page(len(page))
        del page  # let the page go before the next query runs
    return SpilledRecords(runs, count, width)
