"""The search of the duplicates screen: a thread worker that finds the groups at the
threshold shown, reports its progress (facts read, compared, pairs scored) and
stops when asked, as the find screen's search does: a :class:`TaskControl` the
engine looks at between chunks, whose cancel stops the worker at the next one.
A new search (a moved threshold, ``r``) stops the one running first; answers of a
search stopped or replaced are dropped by its number.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from rich.text import Text
from textual import work
from textual.message import Message
from textual.widgets import DataTable, Static
from textual.worker import Worker, WorkerState

from memexplorer.app.operator_session import OperatorSession
from memexplorer.app.screens.operator_screen import OperatorScreen
from memexplorer.app.widgets.worker_errors import report_failed_worker
from memexplorer.operator.duplicates import DuplicatesReport, find_duplicates
from memexplorer.storage.progress import OperationCancelled, ProgressStep, TaskControl

__all__ = ["DuplicatesSearch"]

#: Seconds between two progress lines: the engine reports far more often.
_PROGRESS_EVERY = 0.1


class DuplicatesSearch(OperatorScreen[bool]):
    """A screen that looks for an agent's duplicates in a worker (the duplicates screen)."""

    @dataclass
    class Found(Message):
        report: DuplicatesReport
        note: str = ""
        search: int = 0

    @dataclass
    class Progress(Message):
        search: int
        step: ProgressStep

    def __init__(self, session: OperatorSession, store: Path, agent: str, threshold: float) -> None:
        super().__init__(session)
        self.store, self.agent, self.threshold = store, agent, threshold
        self.report: DuplicatesReport | None = None
        self.control: TaskControl | None = None
        #: Each search's number: a late answer of a search stopped or replaced is dropped.
        self.search = 0
        self.searching = False

    def find(self, note: str = "") -> None:
        """Stop a search that runs, clear the groups, search at the threshold."""
        self.stop(quiet=True)
        self.search += 1
        search, last = self.search, [0.0]

        def heard(step: ProgressStep) -> None:  # on the worker's thread
            now = time.monotonic()
            if now - last[0] >= _PROGRESS_EVERY or step.done == step.total:
                last[0] = now
                self.post_message(self.Progress(search, step))

        self.control = TaskControl(heard)
        self.searching = True
        self.report = None
        self.query_one("#groups", DataTable).clear()
        self.query_one("#facts", DataTable).clear()
        self._title(f"looking for duplicates at similarity ≥ {self.threshold:.2f}… "
                    "(escape stops)")  # fmt: skip
        self.run_find(self.threshold, note, self.control, search)

    @work(thread=True, exclusive=True, group="duplicates-find", exit_on_error=False)
    def run_find(self, threshold: float, note: str, control: TaskControl, search: int) -> None:
        try:
            report = find_duplicates(self.store, self.agent, threshold, control)
        except OperationCancelled:
            if not control.cancelled:
                raise
            return  # a stop the operator asked for is no error
        self.post_message(self.Found(report, note, search))

    def stop(self, quiet: bool = False) -> bool:
        """Cancel the running search; True if one was running."""
        if not self.searching or self.control is None:
            return False
        self.control.cancel()
        self.searching = False
        if not quiet:
            self._title(f"stopped at similarity ≥ {self.threshold:.2f}: no groups "
                        "(r searches again, [ and ] at another threshold)")  # fmt: skip
        return True

    def _title(self, text: str) -> None:
        title = Text(f"{self.agent}: ", style="bold")
        self.query_one("#dup-title", Static).update(title.append(text))

    def on_duplicates_search_progress(self, message: Progress) -> None:
        if message.search != self.search or not self.searching:
            return
        step = message.step
        done = (f"{step.done:,} of {step.total:,} {step.unit}" if step.total
                else f"{step.done:,} {step.unit}")  # fmt: skip
        self._title(f"looking for duplicates at similarity ≥ {self.threshold:.2f}: "
                    f"{step.stage} · {done}… (escape stops)")  # fmt: skip

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.worker.group == "duplicates-find" and event.state == WorkerState.ERROR:
            self.searching = False
        if event.worker.group == "duplicates" and event.state == WorkerState.ERROR:
            self.session.end_write(self.store, wrote=False)  # an undo failed
        report_failed_worker(event, self.session)
