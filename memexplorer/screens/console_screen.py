"""The raw query console: Cypher (SQL for SQLite stores) against one store.

The store stays read-only, so writes are refused by the store itself; results
land in the fast table, capped; a runaway query stops at the time limit or on
``escape``. Queries typed here are kept for this session (``ctrl+up/down``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Footer, Header, Static, TextArea
from textual.worker import Worker, WorkerState
from textual_fastdatatable import DataTable

from memexplorer.app_commands import bindings_for
from memexplorer.engine.console import DEFAULT_ROW_CAP, ConsoleResult, run_console_query

from .error_modal import report_failed_worker
from .value_modal import ValueModal

_EXAMPLES = {
    "kuzu": "MATCH (n:SemanticMemory) RETURN n.concept, n.content, n.confidence LIMIT 20",
    "sqlite": "SELECT name FROM sqlite_master WHERE type = 'table'",
}


class ConsoleScreen(Screen[None]):
    """Type a query, run it with ``ctrl+r``; the store is never written."""

    HELP = (
        "A console for your own queries against one store: Cypher for Kuzu stores, SQL "
        "for SQLite ones. The store is open read-only, so writes are refused. Rows stop at "
        f"a cap of {DEFAULT_ROW_CAP:,}; **escape** stops a running query."
    )
    COMMAND_SCOPE = "console"
    BINDINGS = bindings_for("console")
    DEFAULT_CSS = """
    ConsoleScreen #editor { height: 8; border: round $primary-darken-2; }
    ConsoleScreen #status { height: 1; padding: 0 1; background: $boost; }
    ConsoleScreen #results { height: 1fr; }
    ConsoleScreen #results Static { color: $text-muted; padding: 1 2; }
    """

    @dataclass
    class Ran(Message):
        result: ConsoleResult

    def __init__(self, store: Path, engine: str) -> None:
        super().__init__()
        self.store = store
        self.engine = engine
        self.history: list[str] = []
        self.position = 0
        self.result: ConsoleResult | None = None

    def compose(self) -> ComposeResult:
        yield Header()
        editor = TextArea(_EXAMPLES.get(self.engine, ""), id="editor", soft_wrap=True)
        editor.border_title = f"{'SQL' if self.engine == 'sqlite' else 'Cypher'} · read-only"
        yield editor
        yield Static("ctrl+r runs the query", id="status")
        with Vertical(id="results"):
            yield Static("No results yet.")
        yield Footer()

    def on_mount(self) -> None:
        self.sub_title = f"read-only console · {self.store}"
        self.query_one("#editor", TextArea).focus()

    # -- running -----------------------------------------------------------------------
    def action_run(self) -> None:
        text = self.query_one("#editor", TextArea).text
        if text.strip() and (not self.history or self.history[-1] != text):
            self.history.append(text)
        self.position = len(self.history) - 1  # the query just run
        self.query_one("#status", Static).update("running… (escape stops it)")
        self.query_one("#results").loading = True
        self.execute(text)

    @work(thread=True, exclusive=True, group="console", exit_on_error=False)
    def execute(self, text: str) -> None:
        browser = self.app.browsers.get(self.store)  # type: ignore[attr-defined]
        self.post_message(self.Ran(run_console_query(browser, text)))

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.worker.group != "console":
            return
        if report_failed_worker(event) or event.state == WorkerState.CANCELLED:
            self.query_one("#results").loading = False
            note = "stopped" if event.state == WorkerState.CANCELLED else "failed"
            self.query_one("#status", Static).update(Text(note, style="yellow"))

    async def on_console_screen_ran(self, message: Ran) -> None:
        self.result = message.result
        results = self.query_one("#results", Vertical)
        await results.remove_children()
        if message.result.data.num_columns:
            await results.mount(
                DataTable(data=message.result.data, max_column_content_width=40, id="grid")
            )
        else:
            await results.mount(Static("The query returned no columns."))
        results.loading = False
        self.query_one("#status", Static).update(message.result.describe())

    def action_stop(self) -> None:
        running = [w for w in self.workers if w.group == "console" and w.is_running]
        for worker in running:
            worker.cancel()
        if running:
            self.app.browsers.interrupt(self.store)  # type: ignore[attr-defined]
        else:
            self.app.pop_screen()

    # -- history and values --------------------------------------------------------------
    def _recall(self, step: int) -> None:
        if not self.history:
            return
        self.position = min(max(self.position + step, 0), len(self.history) - 1)
        self.query_one("#editor", TextArea).text = self.history[self.position]

    def action_previous_query(self) -> None:
        self._recall(-1)

    def action_next_query(self) -> None:
        self._recall(1)

    def action_view_cell(self) -> None:
        grids = list(self.query("#grid").results(DataTable))
        if not grids or self.result is None:
            return
        grid = grids[0]
        column = self.result.data.column_names[grid.cursor_column]
        value = self.result.data.column(column)[grid.cursor_row].as_py()
        self.app.push_screen(ValueModal(column, value))

    def action_focus_editor(self) -> None:
        self.query_one("#editor", TextArea).focus()
