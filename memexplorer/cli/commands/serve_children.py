"""Waiting, when serve stops, for the app processes it started to end.

textual-serve tells each tab's app to quit and stops reading it once its output
closes; the app process may still be closing the stores it had open (a store
it wrote is checkpointed on close). serve waits for its child processes to end
first, so that once ``memexplorer serve`` has returned no store of its is
mid-checkpoint. Children are found in /proc (Linux); elsewhere there is nothing
to wait on and serve ends at once, as before.
"""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path

__all__ = ["CHILDREN_WAIT_S", "running_children", "wait_for_children"]

#: How long serve waits, when stopped, for the apps it started to end.
CHILDREN_WAIT_S = 20.0
_POLL_S = 0.05


def running_children(parent: int) -> list[int]:
    """The processes whose parent is ``parent`` and that still run (a zombie,
    ended but not yet reaped, does not)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue  # ended meanwhile
        if int(fields[1]) == parent and fields[0] not in ("Z", "X"):
            found.append(int(stat.parent.name))
    return found


async def wait_for_children(timeout: float = CHILDREN_WAIT_S) -> list[int]:
    """Wait up to ``timeout`` seconds for this process's children to end; the
    ones still running then (empty when all ended, or without /proc)."""
    if not Path("/proc/self/stat").exists():
        return []
    deadline = time.monotonic() + timeout
    while children := running_children(os.getpid()):
        if time.monotonic() >= deadline:
            return children
        await asyncio.sleep(_POLL_S)
    return []
