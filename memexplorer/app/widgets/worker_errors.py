"""How a failed worker's error reaches the operator: the one error path.

Below the screens, so widgets that run workers report failures without
importing a screen; the error modal (screens/error_modal.py) shows them.
"""

from __future__ import annotations

from textual.worker import Worker, WorkerState

from memexplorer.storage.exceptions import MemoryError
from memexplorer.storage.progress import OperationCancelled

__all__ = ["describe_error", "report_failed_worker"]


def report_failed_worker(event: Worker.StateChanged) -> bool:
    """Send a worker's error to the app's error modal; True if there was one.

    A cancel the operator asked for is no error: it gets a notification.
    """
    error = event.worker.error
    if event.state != WorkerState.ERROR or error is None:
        return False
    app = event.worker.node.app
    if isinstance(error, OperationCancelled):
        app.notify(f"{error.message}. {error.hint}", title=error.title)
    else:
        app.show_error(error)  # type: ignore[attr-defined]
    return True


def describe_error(error: BaseException) -> tuple[str, str]:
    """A title and a message (with the hint) for any error a worker raised."""
    if isinstance(error, MemoryError):
        return error.title, error.describe()
    return type(error).__name__, f"{error}\n\nThis is a bug in memexplorer; please report it."
