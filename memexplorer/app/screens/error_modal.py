"""The one place errors are shown: what went wrong and what to do, copyable."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Button, Static

from memexplorer.app.screens.error_commands import ERROR_COMMANDS
from memexplorer.app.screens.modal_dialog import DIALOG_CSS, ModalDialog
from memexplorer.app.widgets.worker_errors import describe_error, report_failed_worker

#: report_failed_worker is named here too, where screens looked for it before it
#: moved below them (widgets/worker_errors.py).
__all__ = ["ErrorModal", "describe_error", "report_failed_worker"]


class ErrorModal(ModalDialog[None]):
    """A failed load or action, with a hint; ``c`` copies the text."""

    HELP = "An error. **c** copies the message, **escape** closes it."
    CSS_PATH = [DIALOG_CSS, "error_modal.tcss"]
    SCREEN_COMMANDS = ERROR_COMMANDS

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
