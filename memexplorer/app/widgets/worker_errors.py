"""How a failed worker's error reaches the operator: the one error path.

Below the screens, so widgets that run workers report failures without
importing a screen; the error modal (screens/error_modal.py) shows them.
"""

from __future__ import annotations

from typing import Protocol

from textual.worker import Worker, WorkerState

from memexplorer.storage.exceptions import MemoryError
from memexplorer.storage.progress import OperationCancelled

__all__ = ["ShowsErrors", "describe_error", "report_failed_worker"]


class ShowsErrors(Protocol):
    """Where errors go: the operator session (operator_session.py) hands them to the App."""

    def show_error(self, error: BaseException) -> None: ...


def report_failed_worker(event: Worker.StateChanged, errors: ShowsErrors) -> bool:
    """Send a worker's error to ``errors`` (the error modal); True if there was one.

    A cancel the operator asked for is no error: it gets a notification.
    """
    error = event.worker.error
    if event.state != WorkerState.ERROR or error is None:
        return False
    if isinstance(error, OperationCancelled):
        event.worker.node.app.notify(f"{error.message}. {error.hint}", title=error.title)
    else:
        errors.show_error(error)
    return True


def describe_error(error: BaseException) -> tuple[str, str]:
    """A title and a message (with the hint) for any error a worker raised."""
    if isinstance(error, MemoryError):
        return error.title, error.describe()
    return type(error).__name__, f"{error}\n\nThis is a bug in memexplorer; please report it."
