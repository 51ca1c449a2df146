"""Progress and cancellation for the engine's long calls (export and import).

The caller hands a :class:`TaskControl` in; the engine reports each stage to it
and, at each of those checkpoints, stops with :class:`OperationCancelled` if the
caller asked. Checkpoints sit only where stopping leaves nothing half-written:
exports write a temporary file that is renamed into place last, imports write a
staged copy of the store that replaces it last.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass

from memexplorer.storage.exceptions import MemoryError

__all__ = ["OperationCancelled", "ProgressStep", "TaskControl", "checkpoint"]


class OperationCancelled(MemoryError):
    """The caller cancelled the work; nothing was written."""

    title = "Cancelled"
    hint = "Nothing was written or changed: the work stops before anything is put in place."


@dataclass(frozen=True)
class ProgressStep:
    """Where a long call is: ``done`` of ``total`` ``unit`` (total None: not known)."""

    stage: str
    done: int = 0
    total: int | None = None
    unit: str = "rows"

    @property
    def fraction(self) -> float | None:
        if not self.total:
            return None
        return min(1.0, self.done / self.total)


class TaskControl:
    """What a caller holds of one long call: its reports, and a way to stop it.

    ``report`` runs on the engine's thread; ``cancel()`` may be called from any
    thread and takes effect at the call's next checkpoint.
    """

    def __init__(self, report: Callable[[ProgressStep], None] | None = None) -> None:
        self._report = report
        self._cancelled = threading.Event()

    def cancel(self) -> None:
        self._cancelled.set()

    @property
    def cancelled(self) -> bool:
        return self._cancelled.is_set()

    def step(self, stage: str, done: int = 0, total: int | None = None, unit: str = "rows") -> None:
        """Report a stage, after stopping here if the caller cancelled."""
        if self._cancelled.is_set():
            raise OperationCancelled(f"Cancelled while {stage}")
        if self._report is not None:
            self._report(ProgressStep(stage, done, total, unit))


def checkpoint(
    control: TaskControl | None, stage: str, done: int = 0, total: int | None = None,
    unit: str = "rows",
) -> None:  # fmt: skip
    """``control.step(...)`` for calls whose caller may pass no control."""
    if control is not None:
        control.step(stage, done, total, unit)
