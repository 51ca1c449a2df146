"""The base of the dialogs that preview a write, then make it (clean, merge, correct).

Each reads what the write would do in a worker and shows it; on confirm it writes in
another worker. While a write runs, escape does not close the dialog: the write is one
transaction that finishes or rolls back, and the dialog closes with its answer. A
failed worker goes to the one error path (the error modal), and the summary line
says what was not done.
"""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar, TypeVar

from textual.widgets import Static
from textual.worker import Worker

from memexplorer.app.operator_session import OperatorSession
from memexplorer.app.screens.operator_screen import OperatorModal
from memexplorer.app.widgets.worker_errors import report_failed_worker

__all__ = ["PreviewWriteModal"]

ResultType = TypeVar("ResultType")


class PreviewWriteModal(OperatorModal[ResultType]):
    """A dialog on one store that shows a write before it makes it."""

    #: The line that says what the dialog is doing.
    SUMMARY: ClassVar[str] = "#summary"
    #: The worker groups that write to the store; the others only read it.
    WRITES: ClassVar[frozenset[str]] = frozenset()
    #: What the summary says when a write failed, and when a read failed.
    WRITE_FAILED: ClassVar[str] = "Nothing was written (see the error)."
    READ_FAILED: ClassVar[str] = "The preview failed (see the error)."

    def __init__(self, session: OperatorSession, store: Path) -> None:
        super().__init__(session)
        self.store = store
        #: A write is under way (escape waits for it).
        self.running = False

    def say(self, text: str) -> None:
        self.query_one(self.SUMMARY, Static).update(text)

    def begin_write(self, note: str) -> None:
        """A write starts: the store's browser closes and its files' moves are ours."""
        self.running = True
        self.say(note)
        self.session.begin_write(self.store)

    def write_failed(self) -> None:
        """Undo what starting the write did (nothing was written)."""
        self.session.end_write(self.store, wrote=False)

    def action_cancel(self) -> None:
        if not self.running:
            self.dismiss(None)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if not report_failed_worker(event, self.session):
            return
        if event.worker.group in self.WRITES:
            self.running = False
            self.write_failed()
            self.say(self.WRITE_FAILED)
        else:
            self.say(self.READ_FAILED)
