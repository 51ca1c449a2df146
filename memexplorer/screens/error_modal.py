"""The one place errors are shown: what went wrong and what to do, copyable."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Static
from textual.worker import Worker, WorkerState

from memexplorer.engine.exceptions import MemoryError
from memexplorer.engine.progress import OperationCancelled


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


class ErrorModal(ModalScreen[None]):
    """A failed load or action, with a hint; ``c`` copies the text."""

    HELP = "An error. **c** copies the message, **escape** closes it."
    DEFAULT_CSS = """
    ErrorModal { align: center middle; }
    ErrorModal > Vertical {
        width: 80%; max-width: 100; height: auto; max-height: 80%;
        border: thick $error; background: $surface; padding: 1 2;
    }
    ErrorModal #title { text-style: bold; color: $error; margin-bottom: 1; }
    ErrorModal #message { height: auto; }
    ErrorModal Button { margin-top: 1; }
    """
    BINDINGS = [
        Binding("escape,enter", "dismiss", "Close", id="error.close"),
        Binding("c", "copy", "Copy", id="error.copy"),
    ]

    def __init__(self, error: BaseException) -> None:
        super().__init__()
        self.error_title, self.message = describe_error(error)

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(self.error_title, id="title", markup=False)
            yield Static(self.message, id="message", markup=False)
            yield Button("Close", variant="error", id="close")

    def on_button_pressed(self) -> None:
        self.dismiss()

    def action_copy(self) -> None:
        self.app.copy_to_clipboard(f"{self.error_title}\n{self.message}")
        self.notify("Copied the error to the clipboard")
