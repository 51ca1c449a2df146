"""The bases of the screens and dialogs that work on the stores.

Each is given the operator session (:mod:`memexplorer.app.operator_session`) when
it is built and keeps it as ``self.session``: what it needs of the stores and of
the App comes through that, never through the App's attributes.
"""

from __future__ import annotations

from typing import TypeVar

from textual.screen import Screen

from memexplorer.app.operator_session import OperatorSession
from memexplorer.app.screens.keys_from_commands import KeysFromCommands
from memexplorer.app.screens.modal_dialog import ModalDialog

__all__ = ["OperatorModal", "OperatorScreen"]

ResultType = TypeVar("ResultType")


class OperatorScreen(KeysFromCommands, Screen[ResultType]):
    """A full screen given the operator session."""

    def __init__(self, session: OperatorSession) -> None:
        super().__init__()
        self.session = session


class OperatorModal(ModalDialog[ResultType]):
    """A dialog given the operator session."""

    def __init__(self, session: OperatorSession) -> None:
        super().__init__()
        self.session = session
