"""A long engine call's progress: the stage, a bar, and how far it got."""

from __future__ import annotations

from dataclasses import dataclass

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import ProgressBar, Static

from memexplorer.storage.progress import ProgressStep, TaskControl


def describe_step(step: ProgressStep) -> str:
    """``writing SemanticMemory: 1,200 of 84,000 rows``, or the stage alone."""
    if step.total:
        return f"{step.stage}: {step.done:,} of {step.total:,} {step.unit}"
    return f"{step.stage}…"


class TaskProgress(Vertical):
    """Hidden until the first step; then the stage above a bar (pulsing when the
    total is unknown). :meth:`control` hands the engine call its TaskControl,
    whose reports come back here from the worker's thread as messages."""

    @dataclass
    class Progressed(Message):
        step: ProgressStep

    DEFAULT_CSS = """
    TaskProgress { height: auto; display: none; margin-top: 1; }
    TaskProgress.-running { display: block; }
    TaskProgress #stage { color: $text-muted; }
    """

    def compose(self) -> ComposeResult:
        yield Static("", id="stage", markup=False)
        yield ProgressBar(total=None, show_eta=False, id="bar")

    def control(self) -> TaskControl:
        """A TaskControl for one run, reporting to this widget (thread-safe)."""
        return TaskControl(lambda step: self.post_message(self.Progressed(step)))

    def on_task_progress_progressed(self, message: Progressed) -> None:
        message.stop()
        self.show(message.step)

    def show(self, step: ProgressStep) -> None:
        self.add_class("-running")
        self.query_one("#stage", Static).update(describe_step(step))
        bar = self.query_one("#bar", ProgressBar)
        bar.display = True  # again, after a run that stopped
        if step.total:
            bar.update(total=step.total, progress=step.done)
        else:
            bar.update(total=None)

    def stop(self, text: str) -> None:
        """Keep the last words (``Cancelled: nothing was written``) and drop the bar."""
        self.query_one("#stage", Static).update(text)
        self.query_one("#bar", ProgressBar).display = False
