"""The base of the transfer dialogs (export, import): one long engine call at a time,
with its progress bar, that escape cancels.

The call runs in a worker with a :class:`TaskControl` from the dialog's
:class:`TaskProgress`; escape cancels it (the worker stops at its next checkpoint)
or, when none runs, closes the dialog. When the call returns, the worker posts
:class:`TaskModal.Done` and the dialog closes with what it returned.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, TypeVar

from textual.message import Message
from textual.widgets import Static
from textual.worker import Worker

from memexplorer.app.operator_session import OperatorSession
from memexplorer.app.screens.operator_screen import OperatorModal
from memexplorer.app.widgets.task_progress import TaskProgress
from memexplorer.storage.progress import OperationCancelled, TaskControl

__all__ = ["TaskModal"]

ResultType = TypeVar("ResultType")


class TaskModal(OperatorModal[ResultType]):
    """A dialog running at most one cancellable engine call."""

    #: The line that says what the dialog is doing.
    NOTE: ClassVar[str] = "#note"

    @dataclass
    class Done(Message):
        """The call returned ``result`` (an export's, an import's)."""

        result: Any

    def __init__(self, session: OperatorSession) -> None:
        super().__init__(session)
        self.control: TaskControl | None = None

    @property
    def running(self) -> bool:
        return self.control is not None

    def start_task(self, note: str) -> TaskControl:
        """A control for the call about to start, reporting to the progress bar."""
        self.control = self.query_one(TaskProgress).control()
        self.query_one(self.NOTE, Static).update(note)
        return self.control

    def on_task_modal_done(self, message: Done) -> None:
        self.dismiss(message.result)

    def action_cancel(self) -> None:
        if self.control is None:
            self.dismiss(None)
        elif not self.control.cancelled:
            self.control.cancel()  # the worker stops at its next checkpoint
            self.query_one(self.NOTE, Static).update("Cancelling…")

    def task_failed(self, event: Worker.StateChanged, what: str) -> None:
        """The call's worker failed or was cancelled: none runs, and nothing was ``what``
        (written, imported): the call writes whole or not at all."""
        cancelled = isinstance(event.worker.error, OperationCancelled)
        self.control = None
        self.query_one(TaskProgress).stop(
            f"Cancelled: nothing was {what}." if cancelled
            else f"Nothing was {what} (see the error)."
        )  # fmt: skip
