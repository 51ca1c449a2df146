"""The bases of the screens and dialogs that work on the stores.

Each is given the operator session (:mod:`memexplorer.app.operator_session`) when
it is built and keeps it as ``self.session``: what it needs of the stores and of
the App comes through that, never through the App's attributes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from textual.screen import Screen
from textual.widgets import DataTable

from memexplorer.app.operator_session import OperatorSession
from memexplorer.app.screens.keys_from_commands import KeysFromCommands
from memexplorer.app.screens.modal_dialog import ModalDialog

__all__ = ["OperatorModal", "OperatorScreen"]

ResultType = TypeVar("ResultType")
Row = TypeVar("Row")


class OperatorScreen(KeysFromCommands, Screen[ResultType]):
    """A full screen given the operator session."""

    def __init__(self, session: OperatorSession) -> None:
        super().__init__()
        self.session = session

    def action_focus_on(self, selector: str) -> None:
        """Move to the widget ``selector`` names (a command's ``screen.focus_on('#id')``)."""
        self.query_one(selector).focus()

    def row_at_cursor(self, table: str, rows: Sequence[Row], empty: str) -> Row | None:
        """The one of ``rows`` under the cursor of the DataTable ``table`` that lists them;
        None, with ``empty`` said as a warning, when there are none."""
        if not rows:
            self.notify(empty, severity="warning")
            return None
        return rows[self.query_one(table, DataTable).cursor_row]


class OperatorModal(ModalDialog[ResultType]):
    """A dialog given the operator session."""

    def __init__(self, session: OperatorSession) -> None:
        super().__init__()
        self.session = session
