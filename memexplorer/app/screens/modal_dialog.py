"""The base of every dialog: one bordered panel, centred over the screen below.

What the dialogs share (the panel on the surface colour, the row of buttons on
the right) is styled once, in ``modal_dialog.tcss``; a dialog's own ``.tcss``
names only what differs (its width, the border's colour for a warning or a
destructive action). A dialog lists both files, the shared one first::

    CSS_PATH = [DIALOG_CSS, "error_modal.tcss"]
"""

from __future__ import annotations

from pathlib import Path
from typing import TypeVar

from textual import on
from textual.screen import ModalScreen
from textual.widgets import Button

from memexplorer.app.screens.keys_from_commands import KeysFromCommands

__all__ = ["DIALOG_CSS", "ModalDialog"]

#: The shared stylesheet; listed first, so a dialog's own rules win over it.
DIALOG_CSS = Path(__file__).with_name("modal_dialog.tcss")

ResultType = TypeVar("ResultType")


class ModalDialog(KeysFromCommands, ModalScreen[ResultType]):
    """A modal screen whose first child (a Vertical or VerticalScroll) is its panel."""

    CSS_PATH = DIALOG_CSS

    def action_confirm(self) -> None:
        """What the dialog's #confirm button (and its key) does; dialogs that ask override it."""

    def action_cancel(self) -> None:
        """Close without an answer; a dialog that is writing overrides it to wait."""
        self.dismiss(None)

    @on(Button.Pressed, "#confirm")
    def _confirm_pressed(self) -> None:
        self.action_confirm()

    @on(Button.Pressed, "#cancel")
    def _cancel_pressed(self) -> None:
        self.action_cancel()
