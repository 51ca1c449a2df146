"""The checking pass of a large import, run in a child process of its own.

The pass keeps every node id of the file in a set, and each id was decoded with its
record: the ids alone pin most of the allocator's arenas, so after a million facts
the process kept some 250 MB it no longer used, under the peak of the writing step
that follows (677 MB at 1M facts; issue 18 wants 600). A child gives all of it
back when it exits. What it learned comes back pickled, the ids in one compact
run of memory that is freed cleanly; its rows are in the spill's files.
"""

from __future__ import annotations

import pickle
import subprocess
import sys
from pathlib import Path

from memexplorer.memory.import_spill import RowSpill
from memexplorer.memory.import_stream_check import FileSummary, check_export_file
from memexplorer.storage.exceptions import ImportDataError, MemoryError
from memexplorer.storage.memory_budget import give_back_freed_memory

__all__ = ["CHILD_BYTES", "check_import_file", "check_in_child"]

#: Files at least this large (some 200k facts) are checked in a child; below, the
#: ids pin little and the child's start (0.3 s of CPU at 100k facts) would cost more.
CHILD_BYTES = 128 * 1024 * 1024


def check_import_file(source: Path, *, merge: bool, spill: RowSpill) -> FileSummary:
    """Check ``source`` and keep its rows in ``spill``: in a child when the file is
    large (see the module docstring), else here."""
    if source.stat().st_size >= CHILD_BYTES:
        return check_in_child(source, merge=merge, spill=spill)
    summary = check_export_file(source, merge=merge, spill=spill)
    give_back_freed_memory()  # the records' and batches' pages, before the writing step
    return summary


def check_in_child(source: Path, *, merge: bool, spill: RowSpill) -> FileSummary:
    """:func:`~.import_stream_check.check_export_file` in a child process; ``spill``
    gets the rows in its folder, closed. Raises what the check raises."""
    command = [sys.executable, "-m", __name__, str(source), str(spill.folder), spill.agent_id,
               "merge" if merge else "replace"]  # fmt: skip
    done = subprocess.run(command, capture_output=True, check=False)
    if done.returncode != 0 or not done.stdout:
        said = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise MemoryError(
            f"The check of {source} stopped (exit {done.returncode}): "
            f"{said[-1] if said else 'no message'}",
            hint="Try again; if it fails again, report the message.",
        )
    kind, *rest = pickle.loads(done.stdout)
    if kind == "refused":
        message, hint = rest
        raise ImportDataError(message, hint=hint)
    summary, counts = rest
    spill.counts = counts
    return summary


def _main(source: str, folder: str, agent_id: str, how: str) -> None:
    spill = RowSpill(Path(folder), agent_id)
    try:
        summary = check_export_file(Path(source), merge=how == "merge", spill=spill)
        spill.close()
    except ImportDataError as exc:
        answer: tuple[object, ...] = ("refused", str(exc), exc.hint)
    else:
        answer = ("checked", summary, spill.counts)
    sys.stdout.buffer.write(pickle.dumps(answer, protocol=pickle.HIGHEST_PROTOCOL))


if __name__ == "__main__":
    _main(*sys.argv[1:5])
