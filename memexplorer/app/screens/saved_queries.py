"""The saved queries of the query box and the console: read once the screen opens,
added to after each query, in workers so the file work never slows the screen.

Each screen keeps its own file (``HISTORY_FILE``, in the data folder) and shows
what comes back in its ``on_saved_queries_history_loaded`` handler.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from textual import work
from textual.message import Message

from memexplorer.app.operator_session import OperatorSession
from memexplorer.app.screens.operator_screen import OperatorScreen
from memexplorer.operator.query_history import FILE_NAME, HistoryEntry, QueryHistory

__all__ = ["SavedQueries"]

#: One writer of a history file at a time in this process.
_HISTORY_LOCK = threading.Lock()


class SavedQueries(OperatorScreen[None]):
    """A screen on one store with a history file of the queries run on it (the
    file holds every store's; each entry names its own)."""

    #: The name of the screen's history file.
    HISTORY_FILE: ClassVar[str] = FILE_NAME

    @dataclass
    class HistoryLoaded(Message):
        entries: list[HistoryEntry]

    def __init__(self, session: OperatorSession, store: Path) -> None:
        super().__init__(session)
        self.store = store
        self.saved = QueryHistory(name=self.HISTORY_FILE)

    @work(thread=True, exclusive=True, group="history", exit_on_error=False)
    def load_history(self) -> None:
        self.post_message(self.HistoryLoaded(self.saved.load()))

    @work(thread=True, group="history-save", exit_on_error=False)
    def save_history(self, entry: HistoryEntry) -> None:
        with _HISTORY_LOCK:
            self.post_message(self.HistoryLoaded(self.saved.add(entry)))
