"""Writing a transfer-format export as JSON text, quickly and a record per line.

The top level is indented like ``json.dumps(indent=2)``; each node and edge is
one line, encoded by the json module's C encoder. That text parses to the same
document, diffs and greps a record at a time, and is written about ten times
faster than indent=2 throughout (whose encoder is pure Python). Each record is
a short call, so a thread writing a large export never holds the interpreter
long enough to stall the app's screen.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from itertools import islice
from typing import Any, TextIO

from memexplorer.memory.export_merge import SpilledRecords
from memexplorer.storage.progress import TaskControl, checkpoint

__all__ = ["count_records", "end_document", "write_export_json", "write_item", "write_list"]

#: The lists of a document: records, or records already encoded and kept on disk.
_LISTS = (list, SpilledRecords)
#: Records written between two progress reports (and cancel checks).
RECORDS_PER_STEP = 5_000


def count_records(data: dict[str, Any]) -> int:
    """Nodes and edges in an export: every list at its top level."""
    return sum(len(value) for value in data.values() if isinstance(value, _LISTS))


def write_export_json(handle: TextIO, data: dict[str, Any], control: TaskControl | None) -> None:
    """Write ``data`` to ``handle``; ``control`` hears of every few thousand records.
    A list may be a :class:`~.export_merge.SpilledRecords`, records already encoded."""
    total = count_records(data)
    done = 0
    encode = json.JSONEncoder().encode
    handle.write("{")
    for number, (key, value) in enumerate(data.items()):
        if isinstance(value, SpilledRecords):
            done = write_list(handle, number, key, value, control, done, total)
        elif isinstance(value, list):
            done = write_list(handle, number, key, map(encode, value), control, done, total)
        else:
            write_item(handle, number, key, value)
    end_document(handle)


def write_item(handle: TextIO, number: int, key: str, value: Any) -> None:
    """The ``number``-th member of the document (0 is the first), a value that is not a list."""
    handle.write(f"{',' if number else ''}\n  {json.dumps(key)}: ")
    handle.write(json.dumps(value, indent=2).replace("\n", "\n  "))


def write_list(
    handle: TextIO,
    number: int,
    key: str,
    records: Iterable[str],
    control: TaskControl | None,
    done: int = 0,
    total: int | None = None,
) -> int:
    """The ``number``-th member, a list of already encoded ``records`` taken as they
    come; returns ``done`` plus the records written (reported to ``control``)."""
    handle.write(f"{',' if number else ''}\n  {json.dumps(key)}: ")
    opening = "["
    records = iter(records)
    while batch := list(islice(records, RECORDS_PER_STEP)):
        handle.write(opening + "\n    " + ",\n    ".join(batch))
        opening = ","
        done += len(batch)
        checkpoint(control, "writing the file", done, total, "records")
    handle.write("[]" if opening == "[" else "\n  ]")
    return done


def end_document(handle: TextIO) -> None:
    handle.write("\n}\n")
