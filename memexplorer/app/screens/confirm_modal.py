"""Ask before a change: what it is, what guards it, then confirm (y) or cancel
(escape). Switching a store to writing and a console write both ask here."""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import RenderableType
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Static

from memexplorer.app.screens.confirm_commands import CONFIRM_COMMANDS
from memexplorer.app.screens.modal_dialog import DIALOG_CSS, ModalDialog


class ConfirmModal(ModalDialog[bool | None]):
    """A question with its details; ``y`` confirms, ``escape`` cancels.

    Dismisses with True once the change is made (subclasses that make it
    themselves, in a worker, dismiss after it), None when cancelled.
    """

    HELP = "Read what will happen, then **y** (or the button) to go ahead; **escape** cancels."
    SCREEN_COMMANDS = CONFIRM_COMMANDS
    CSS_PATH = [DIALOG_CSS, "confirm_modal.tcss"]

    def __init__(
        self, question: str, details: Sequence[RenderableType], confirm_label: str
    ) -> None:
        super().__init__()
        self.question = question
        self.details = list(details)
        self.confirm_label = confirm_label

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(self.question, id="question", markup=False)  # names a store
            for detail in self.details:
                yield Static(detail, classes="detail")
            with Horizontal(id="buttons"):
                yield Button(f"{self.confirm_label} (y)", variant="warning", id="confirm")
                yield Button("Cancel (esc)", id="cancel")

    def on_mount(self) -> None:
        self.query_one("#cancel", Button).focus()

    def action_confirm(self) -> None:
        self.confirmed()

    def action_cancel(self) -> None:
        self.dismiss(None)

    def confirmed(self) -> None:
        """Go ahead: here, just answer True; a subclass may do the work first."""
        self.dismiss(True)
