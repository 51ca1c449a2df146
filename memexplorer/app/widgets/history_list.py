"""Past queries of one agent, newest first, narrowed to those matching what is typed."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from textual.widgets import OptionList
from textual.widgets.option_list import Option

from memexplorer.app.widgets.widget_message import WidgetMessage
from memexplorer.operator.query_history import HistoryEntry, QueryHistory


class HistoryList(OptionList):
    """The agent's earlier queries; choosing one runs it again."""

    HELP = (
        "Earlier queries on this agent, kept across restarts. The list narrows to the "
        "queries containing the words in the query box; **enter** runs one again."
    )
    DEFAULT_CSS = """
    HistoryList { width: 25%; min-width: 16; max-width: 32; height: 1fr;
                  border: round $primary-darken-2; }
    HistoryList:focus { border: round $primary; }
    """

    @dataclass
    class Chosen(WidgetMessage["HistoryList"]):
        entry: HistoryEntry

    def __init__(self, agent: str, store: str, **kwargs: Any) -> None:
        super().__init__(markup=False, **kwargs)
        self.agent = agent
        self.store = store
        self.entries: list[HistoryEntry] = []
        self.shown: list[HistoryEntry] = []
        self.filter_text = ""
        self.border_title = "history"

    def set_entries(self, entries: list[HistoryEntry]) -> None:
        """The whole history; only this agent's queries on this store are listed."""
        self.entries = [e for e in entries if e.agent == self.agent and e.store == self.store]
        self.narrow(self.filter_text)

    def narrow(self, text: str) -> None:
        self.filter_text = text
        self.shown = QueryHistory.matching(self.entries, text)
        self.clear_options()
        self.add_options(Option(entry.query) for entry in self.shown)
        total = len(self.entries)
        self.border_title = (
            f"history {len(self.shown)}/{total}" if text.strip() else f"history ({total})"
        )

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.post_message(self.Chosen(self, self.shown[event.option_index]))
