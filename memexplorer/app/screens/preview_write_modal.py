"""The base of the dialogs that preview a write, then make it (clean, merge, correct).

Each reads what the write would do in a worker and shows it; on confirm,
:meth:`PreviewWriteModal.run_write` makes the write in another worker, with the
store's browser closed and the moves of its files known to be ours, and hands what
it returned back on the UI thread. While a write runs, escape does not close the
dialog: the write is one transaction that finishes or rolls back. A failed worker
goes to the one error path (the error modal), and the summary line says what was
not done.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any, ClassVar, TypeVar

from textual.message import Message
from textual.widgets import Static
from textual.worker import Worker

from memexplorer.app.operator_session import OperatorSession
from memexplorer.app.screens.operator_screen import OperatorModal
from memexplorer.app.widgets.worker_errors import report_failed_worker

__all__ = ["PreviewWriteModal"]

ResultType = TypeVar("ResultType")
Written = TypeVar("Written")

#: The worker group of the writes (the previews' groups are the dialogs' own).
_WRITE = "write"


class PreviewWriteModal(OperatorModal[ResultType]):
    """A dialog on one store that shows a write before it makes it."""

    #: The line that says what the dialog is doing.
    SUMMARY: ClassVar[str] = "#summary"
    #: What the summary says when a write failed, and when a read failed.
    WRITE_FAILED: ClassVar[str] = "Nothing was written (see the error)."
    READ_FAILED: ClassVar[str] = "The preview failed (see the error)."

    @dataclass
    class Wrote(Message):
        """A write returned ``result``; ``then`` shows it."""

        result: Any
        then: Callable[[Any], None]

    def __init__(self, session: OperatorSession, store: Path) -> None:
        super().__init__(session)
        self.store = store
        #: A write is under way (escape waits for it).
        self.running = False

    def say(self, text: str) -> None:
        self.query_one(self.SUMMARY, Static).update(text)

    def run_write(
        self, note: str, write: Callable[[], Written], then: Callable[[Written], None]
    ) -> None:
        """Say ``note``, then call ``write`` in a worker; ``then`` gets what it returned."""
        self.running = True
        self.say(note)
        # kuzu keeps one database per file per process: the app's read-only copy goes,
        # and the store's files move while we write: the store watch keeps quiet, or a
        # look between the write and its answer calls our own write a change on disk.
        self.session.begin_write(self.store)
        self.run_worker(partial(self._write, write, then), thread=True, exclusive=True,
                        group=_WRITE, exit_on_error=False)  # fmt: skip

    def _write(self, write: Callable[[], Written], then: Callable[[Written], None]) -> None:
        self.post_message(self.Wrote(write(), then))

    def on_preview_write_modal_wrote(self, message: Wrote) -> None:
        self.running = False
        self.session.end_write(self.store)
        message.then(message.result)

    def write_failed(self) -> None:
        """Nothing was written: the store's files are watched again."""
        self.session.end_write(self.store, wrote=False)

    def action_cancel(self) -> None:
        if not self.running:
            self.dismiss(None)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if not report_failed_worker(event, self.session):
            return
        if event.worker.group == _WRITE:
            self.running = False
            self.write_failed()
            self.say(self.WRITE_FAILED)
        else:
            self.say(self.READ_FAILED)
