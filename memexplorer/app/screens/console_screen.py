"""The raw query console: Cypher (SQL for SQLite stores) against one store.

Read-only unless the store is in writing mode, and then every statement that may
write is confirmed and backed up first (console_writes.py); results land in the
fast table, capped; a runaway query stops at the time limit or on ``escape``.
Queries run here are kept per store across restarts (``ctrl+up/down``, and the
history list narrowed by the editor's words, as in the query box).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widgets import Footer, Header, Static, TextArea
from textual.worker import Worker, WorkerState
from textual_fastdatatable import DataTable

from memexplorer.app.literal import literal
from memexplorer.app.operator_session import OperatorSession
from memexplorer.app.screens.console_commands import CONSOLE_COMMANDS
from memexplorer.app.screens.console_writes import ConsoleWrites
from memexplorer.app.screens.saved_queries import SavedQueries
from memexplorer.app.screens.value_modal import ValueModal
from memexplorer.app.widgets.history_list import HistoryList
from memexplorer.app.widgets.worker_errors import report_failed_worker
from memexplorer.operator.browse import GraphBrowser, StoreBrowser
from memexplorer.operator.console import (
    DEFAULT_ROW_CAP,
    ConsoleResult,
    run_console_query,
    statement_writes,
)
from memexplorer.operator.console_run import ConsoleStopped, QueryProcess, runs_in_a_process
from memexplorer.operator.query_history import CONSOLE_FILE_NAME, HistoryEntry

_CYPHER_EXAMPLE = "MATCH (n:SemanticMemory) RETURN n.concept, n.content, n.confidence LIMIT 20"
_EXAMPLES = {
    "kuzu": _CYPHER_EXAMPLE,
    "ladybug": _CYPHER_EXAMPLE,
    "sqlite": "SELECT name FROM sqlite_master WHERE type = 'table'",
}


class ConsoleScreen(ConsoleWrites, SavedQueries):
    """Type a query, run it with ``ctrl+r``; writes only in writing mode, confirmed."""

    HELP = (
        "A console for your own queries against one store: Cypher for Kuzu stores, SQL "
        "for SQLite ones. While the store is read-only, statements that may write are "
        "refused; in writing mode (**f6**, or **w** on the stores screen) each one is "
        "shown for you to confirm, a copy of the store is saved first, and **f8** undoes "
        f"it. Rows stop at a cap of {DEFAULT_ROW_CAP:,}; **escape** stops a running query. "
        "Queries are kept per store across restarts: **ctrl+up/down**, or **f3** for the "
        "list, narrowed to the queries holding the editor's words."
    )
    SCREEN_COMMANDS = CONSOLE_COMMANDS
    #: Typing goes here at once (the screen would focus its first input instead).
    AUTO_FOCUS = "#editor"
    CSS_PATH = "console_screen.tcss"
    HISTORY_FILE = CONSOLE_FILE_NAME

    @dataclass
    class Ran(Message):
        result: ConsoleResult

    def __init__(
        self, session: OperatorSession, store: Path, engine: str, kind: str = "unknown"
    ) -> None:
        super().__init__(session, store)
        self.engine = engine
        self.kind = kind
        self.history: list[str] = []
        self.position = 0
        self.result: ConsoleResult | None = None
        #: The running query's own process (read-only graph stores), to stop it.
        self.query_process: QueryProcess | None = None
        #: The next query's process, started ahead so it answers at once.
        self.ready: QueryProcess | None = None

    def compose(self) -> ComposeResult:
        yield Header()
        yield TextArea(_EXAMPLES.get(self.engine, ""), id="editor", soft_wrap=True)
        yield Static("ctrl+r runs the query", id="status")
        with Horizontal(id="below"):
            with Vertical(id="results"):
                yield Static("No results yet.")
            yield HistoryList("", str(self.store), id="history")
        yield Footer()

    def on_mount(self) -> None:
        self.show_mode()
        self.query_one("#editor", TextArea).focus()
        self.load_history()
        self.get_ready()

    def show_mode(self) -> None:
        """Headers say whether this store is read-only or open for writing."""
        mode = self.session.mode(self.store)
        language = "SQL" if self.engine == "sqlite" else "Cypher"
        self.query_one("#editor", TextArea).border_title = f"{language} · {mode}"
        self.sub_title = f"{mode} console · {self.store}"

    # -- writing mode (see console_writes.py) -----------------------------------------------
    def writing_target(self) -> tuple[Path, str] | None:
        self.drop_ready()  # its read-only handle would keep the store from opening for writing
        return self.store, self.engine

    def writing_changed(self, store: Path) -> None:
        self.touched = True
        self.show_mode()

    def action_select_query(self) -> None:
        """Select the whole query (the editor's own ctrl+a only goes to the line's start,
        so typed text was added to the old query)."""
        editor = self.query_one("#editor", TextArea)
        editor.focus()
        editor.select_all()

    # -- running -----------------------------------------------------------------------
    def action_run(self) -> None:
        text = self.query_one("#editor", TextArea).text
        if not text.strip():
            return
        self.remember(text)
        if statement_writes(text, self.engine):
            self.ask_to_write(text)
            return
        self.starting("running… (escape stops it)")
        self.execute(text)

    def starting(self, status: str) -> None:
        self.query_one("#status", Static).update(status)
        self.query_one("#results").loading = True

    def finished(self, status: str | Text) -> None:
        self.query_one("#results").loading = False
        self.query_one("#status", Static).update(status)

    @work(thread=True, exclusive=True, group="console", exit_on_error=False)
    def execute(self, text: str) -> None:
        browser = self.session.browser(self.store)
        process = self._take_ready(browser)
        self.query_process = process
        try:
            result = run_console_query(browser, text, process=process)
        except ConsoleStopped:
            return  # escape ended it; the status already says so
        finally:
            self.query_process = None
            self.get_ready(browser)
        self.post_message(self.Ran(result))

    def get_ready(self, browser: StoreBrowser | None = None) -> None:
        """Start the next query's process now, so it has opened the store by the time
        the operator runs it (read-only graph stores only)."""
        browser = browser or self.session.browser(self.store)
        if self.ready is None and isinstance(browser, GraphBrowser) and runs_in_a_process(browser):
            self.ready = QueryProcess(browser)

    def _take_ready(self, browser: StoreBrowser) -> QueryProcess | None:
        ready, self.ready = self.ready, None
        graph = browser if isinstance(browser, GraphBrowser) else None
        if ready is not None and graph is not None and ready.fresh and ready.graph is graph.graph:
            return ready
        if ready is not None:
            ready.discard()
        return QueryProcess(graph) if graph is not None and runs_in_a_process(graph) else None

    def drop_ready(self) -> None:
        """No query process waits with the store open (it would block a switch to
        writing, and must not outlive the console)."""
        ready, self.ready = self.ready, None
        if ready is not None:
            ready.discard()

    def on_unmount(self) -> None:
        self.drop_ready()

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        failed = report_failed_worker(event, self.session)
        if event.worker.group == "console" and (failed or event.state == WorkerState.CANCELLED):
            note = "stopped" if event.state == WorkerState.CANCELLED else "failed"
            self.finished(Text(note, style="yellow"))

    def on_console_screen_ran(self, message: Ran) -> None:
        self.show_result(message.result)

    @work(exclusive=True, group="show")
    async def show_result(self, result: ConsoleResult) -> None:
        self.result = result
        results = self.query_one("#results", Vertical)
        await results.remove_children()
        if result.data.num_columns:
            labels = [literal(name) for name in result.data.column_names]
            grid = DataTable(data=result.data, column_labels=labels, render_markup=False,
                             max_column_content_width=40, id="grid")  # fmt: skip
            await results.mount(grid)
        else:
            await results.mount(Static("The query returned no columns."))
        self.finished(result.describe())

    def clear_result(self) -> None:
        """A stopped query has no result: the previous one must not stand under it."""
        self.result = None
        results = self.query_one("#results", Vertical)
        results.remove_children()
        results.mount(Static("Stopped before it finished: no rows.", classes="note"))

    def action_stop(self) -> None:
        running = [w for w in self.workers if w.group == "console" and w.is_running]
        for worker in running:
            worker.cancel()
        if not running:
            self.dismiss(self.touched)
            return
        process = self.query_process
        if process is not None:
            process.stop()  # the query's own process ends: at once, memory and all
        else:
            self.session.interrupt(self.store)
        self.clear_result()
        self.finished(Text("stopped", style="yellow"))

    # -- history -------------------------------------------------------------------------
    def remember(self, text: str) -> None:
        if not self.history or self.history[-1] != text:
            self.history.append(text)
        self.position = len(self.history) - 1  # the query just run
        self.save_history(HistoryEntry(text, "", str(self.store)))

    def on_saved_queries_history_loaded(self, message: SavedQueries.HistoryLoaded) -> None:
        listed = self.query_one(HistoryList)
        listed.set_entries(message.entries)
        if not self.history:  # restored once, at start; later the session's order wins
            self.history = [entry.query for entry in listed.entries]
            self.position = len(self.history)

    @on(TextArea.Changed, "#editor")
    def narrow_history(self, event: TextArea.Changed) -> None:
        self.query_one(HistoryList).narrow(event.text_area.text)

    @on(HistoryList.Chosen)
    def recall_chosen(self, message: HistoryList.Chosen) -> None:
        """An earlier query back in the editor (not run: it may be a write)."""
        editor = self.query_one("#editor", TextArea)
        editor.text = message.entry.query
        editor.focus()

    # -- values ----------------------------------------------------------------------------
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
