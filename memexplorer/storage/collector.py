"""Pausing Python's cyclic garbage collector during bulk work.

An export or import of 100k facts builds millions of container objects. Each
time they grow by a quarter the collector scans all of them again, with every
thread stopped: pauses of 100-400 ms, measured, during which an app on another
thread cannot draw. Those objects hold no reference cycles, so reference
counting frees them anyway; the collector is resumed when the last bulk call ends.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["collector_paused", "release_gradually"]

_lock = threading.Lock()
_depth = 0
_was_enabled = True


@contextmanager
def collector_paused() -> Iterator[None]:
    """Disable automatic collection until every nested or concurrent user is done."""
    global _depth, _was_enabled
    with _lock:
        if _depth == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
        _depth += 1
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0 and _was_enabled:
                gc.enable()


def release_gradually(document: dict[str, Any], batch: int = 5_000) -> None:
    """Empty a large export's lists a batch at a time.

    Freeing 100k records at once takes a few hundred ms with every other thread
    waiting; a batch at a time lets them run in between.
    """
    for value in document.values():
        if isinstance(value, list):
            while value:
                del value[-batch:]
