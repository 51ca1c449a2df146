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
import os
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
    #: Whether the keys are written as JSON strings (one was not printable).
    quoted: bool


class SpilledRecords:
    """Encoded JSON records kept in sorted run files: ``len()`` is how many,
    iterating gives them in order.

    A run line is the key's strings, then the record, separated by tabs (JSON
    text never holds a raw tab or newline). The key's strings are written as
    they are when every one in the run is printable (no tab, newline or other
    control character), else as JSON strings, decoded again to compare.
    Runs that do not overlap (a store written in the export's order) are read
    one after another without looking at a key; others are merged on their keys.
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
        with ExitStack() as stack:
            files = [stack.enter_context(_open(run.path, "r")) for run in self.runs]
            if apart:
                for handle in files:
                    for line in handle:
                        yield line.split("\t", width)[width].rstrip("\n")
                return
            merging = heapq.merge(*(
                (_quoted if run.quoted else _raw)(handle, width)
                for run, handle in zip(self.runs, files, strict=True)
            ))  # fmt: skip
            for _, _, text in merging:
                yield text


def _open(path: Path, mode: str) -> TextIO:
    """A run file, 0o600 from its first byte (it holds the agent's memories).
    newline="": no translation; no run line holds a raw carriage return."""
    return open(path, mode, encoding="utf-8", newline="", opener=_private)


def _private(path: str, flags: int) -> int:
    return os.open(path, flags, 0o600)


def _raw(handle: TextIO, width: int) -> Iterator[tuple[Key, int, str]]:
    for number, line in enumerate(handle):
        *key, text = line.split("\t", width)
        yield tuple(key), number, text.rstrip("\n")


def _quoted(handle: TextIO, width: int) -> Iterator[tuple[Key, int, str]]:
    for number, line in enumerate(handle):
        *key, text = line.split("\t", width)
        yield tuple(scanstring(part, 1)[0] for part in key), number, text.rstrip("\n")


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
        keys = [key(item) for item in page]
        width = len(keys[0])
        quoted = not all(part.isprintable() for fields in keys for part in fields)
        path = folder / f"run-{next(_RUN_NUMBERS)}"
        join = (lambda fields: "\t".join(map(quote, fields))) if quoted else "\t".join
        with _open(path, "x") as handle:
            handle.writelines(
                f"{join(fields)}\t{encode(item)}\n" for fields, item in zip(keys, page, strict=True)
            )
        runs.append(_Run(path, keys[0], keys[-1], quoted))
        count += len(page)
        if on_page:
            on_page(len(page))
        del page, keys  # let the page go before the next query runs
    return SpilledRecords(runs, count, width)
