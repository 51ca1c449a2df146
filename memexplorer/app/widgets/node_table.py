"""One table of one agent, a page at a time: sort, filter, honest counts.

Rows come from the store a page at a time (never the whole table in memory) as
Arrow, which the fast data table draws directly.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import Input, Static
from textual.worker import Worker, WorkerState
from textual_fastdatatable import DataTable

from memexplorer.app.literal import literal
from memexplorer.app.operator_session import OperatorSession
from memexplorer.app.widgets.widget_message import WidgetMessage
from memexplorer.app.widgets.worker_errors import report_failed_worker
from memexplorer.operator.browse import Page, PageQuery, StoreBrowser, TableInfo
from memexplorer.storage.stored_json import stored_json_text

#: Cells show at most this many characters; ``v`` opens the whole value.
MIN_CELL_WIDTH = 10
MAX_CELL_WIDTH = 40
PAGE_SIZE = 100


@dataclass(frozen=True)
class TableSource:
    """Which table is shown: the store's browser, the agent, the table."""

    browser: StoreBrowser
    agent: str
    table: TableInfo


class NodeTable(Vertical):
    """The rows of one table, paged from the store in a worker."""

    HELP = (
        "Rows of the chosen table, a page at a time. **n**/**p** page, **g**/**G** first and "
        "last page, **s** sorts by the cursor's column, **/** filters, **o** opens the row's "
        "node, **v** shows a whole value."
    )
    DEFAULT_CSS = """
    NodeTable { height: 1fr; }
    NodeTable #status { height: 1; padding: 0 1; background: $boost; }
    NodeTable #filter { display: none; }
    NodeTable.filtering #filter { display: block; }
    NodeTable #rows { height: 1fr; }
    NodeTable #empty { height: 1fr; content-align: center middle; color: $text-muted; }
    """

    @dataclass
    class RowOpened(WidgetMessage["NodeTable"]):
        """Open a node: the row's own, or for a rel row the node at the cursor's end."""

        source: TableSource
        node_table: str
        key: str

    @dataclass
    class PageLoaded(Message):
        table: NodeTable
        source: TableSource
        page: Page

    def __init__(self, session: OperatorSession, page_size: int = PAGE_SIZE, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.session = session
        self.page_size = page_size
        self._focus_on_load = False
        self.source: TableSource | None = None
        self.page_query = PageQuery(limit=page_size)
        self.page: Page | None = None
        self.base64_columns: list[str] = []

    def compose(self) -> ComposeResult:
        yield Static("Choose a table on the left.", id="status")
        yield Input(placeholder="filter: rows whose text contains…", id="filter", disabled=True)
        with Vertical(id="rows"):
            yield Static("No table open.", id="empty")

    # -- loading -------------------------------------------------------------------------
    def show(self, source: TableSource, *, focus: bool = False) -> None:
        """Open a table at its first page, unsorted and unfiltered (``focus``: move
        the keyboard to its rows once they arrive)."""
        self._focus_on_load = focus
        self.source = source
        self.page = None
        self.page_query = PageQuery(limit=self.page_size)
        self.query_one("#filter", Input).value = ""
        self.load(self.page_query)

    def load(self, query: PageQuery) -> None:
        if self.source is None:
            return
        self.page_query = query
        self.query_one("#status", Static).update(Text(f"{self.source.table.name}: loading…"))
        grid = self._grid()
        # Loading blurs the rows; the keyboard comes back to them with the new page.
        self._focus_on_load = self._focus_on_load or (grid is not None and grid.has_focus)
        self.loading = True
        self.fetch(self.source, query)

    @work(thread=True, exclusive=True, group="page", exit_on_error=False)
    def fetch(self, source: TableSource, query: PageQuery) -> None:
        page = source.browser.page(source.table, source.agent, query)
        self.post_message(self.PageLoaded(self, source, page))

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        report_failed_worker(event, self.session)
        if event.worker.group == "page" and event.state in (
            WorkerState.ERROR,
            WorkerState.CANCELLED,
        ):
            self.loading = False
            self._update_status("load cancelled" if event.state == WorkerState.CANCELLED else "")

    async def on_node_table_page_loaded(self, message: PageLoaded) -> None:
        if message.source != self.source:
            return  # a page of a table that is no longer shown
        old = self._grid()
        column = old.cursor_column if old is not None and self.page is not None else 0
        self.page = message.page
        self.base64_columns = _base64_columns(message.page)
        rows = self.query_one("#rows", Vertical)
        await rows.remove_children()
        if message.page.data.num_rows:
            grid = DataTable(
                data=message.page.data,
                column_labels=[literal(name) for name in message.page.data.column_names],
                render_markup=False,  # stored values and names are shown as they are
                max_column_content_width=self._cell_width(),
                cursor_type="cell",
                id="grid",
            )
            await rows.mount(grid)
            # Same table, another page: keep the operator's column.
            if column:
                grid.move_cursor(column=min(column, message.page.data.num_columns - 1))
            if self._focus_on_load:
                grid.focus()
        else:
            await rows.mount(Static(message.page.describe(), id="empty", markup=False))
        self._focus_on_load = False
        self.loading = False
        self._update_status()

    def _update_status(self, note: str = "") -> None:
        if self.source is None:
            return
        # The counts first: at 80 columns the line is cut, and they matter most.
        text = Text()
        if self.page is not None and self.page.query == self.page_query:
            text.append(f"{self.page.describe()}  ")
        text.append(self.source.table.name, style="bold")
        if self.source.agent:
            text.append(f" of {self.source.agent}", style="dim")
        if self.base64_columns and self.page is not None:
            names = ", ".join(self.base64_columns)
            text.append(f"  {names}: stored as base64 (v shows it decoded)", style="dim")
        if self.page_query.sort:
            arrow = "↓" if self.page_query.descending else "↑"
            text.append(f"  sorted by {self.page_query.sort} {arrow}", style="dim")
        if note:
            text.append(f"  {note}", style="yellow")
        self.query_one("#status", Static).update(text)

    # -- what the screen's commands do ----------------------------------------------------
    def cancel(self) -> bool:
        """Stop a running load; returns False if nothing was running."""
        running = [w for w in self.workers if w.group == "page" and w.is_running]
        for worker in running:
            worker.cancel()
        if running and self.source is not None:
            self.source.browser.interrupt()
        return bool(running)

    def turn_page(self, step: int) -> None:
        if self.page is None:
            return
        offset = self.page_query.offset + step * self.page_query.limit
        last = max((self.page.total - 1) // self.page_query.limit * self.page_query.limit, 0)
        offset = min(max(offset, 0), last)
        if offset != self.page_query.offset:
            self.load(replace(self.page_query, offset=offset))

    def first_page(self) -> None:
        if self.page_query.offset:
            self.load(replace(self.page_query, offset=0))

    def last_page(self) -> None:
        if self.page is None:
            return
        last = max((self.page.total - 1) // self.page_query.limit * self.page_query.limit, 0)
        if last != self.page_query.offset:
            self.load(replace(self.page_query, offset=last))

    def cursor_column_name(self) -> str | None:
        grid = self._grid()
        if grid is None or self.page is None:
            return None
        return self.page.data.column_names[grid.cursor_column]

    def sort_by_cursor(self) -> None:
        column = self.cursor_column_name()
        if column is None:
            return
        descending = self.page_query.sort == column and not self.page_query.descending
        self.load(replace(self.page_query, sort=column, descending=descending, offset=0))

    def start_filter(self) -> None:
        if self.source is None:
            return
        self.add_class("filtering")
        box = self.query_one("#filter", Input)
        box.disabled = False
        box.focus()

    def stop_filter(self) -> None:
        self.remove_class("filtering")
        self.query_one("#filter", Input).disabled = True
        self._focus_on_load = True
        if self.page_query.text:
            self.query_one("#filter", Input).value = ""
            self.load(replace(self.page_query, text="", offset=0))
            return
        self._focus_on_load = False
        self.focus_rows()

    @on(Input.Submitted, "#filter")
    def apply_filter(self, event: Input.Submitted) -> None:
        self._focus_on_load = True
        self.load(replace(self.page_query, text=event.value.strip(), offset=0))

    def cursor_value(self) -> tuple[str, Any] | None:
        grid = self._grid()
        column = self.cursor_column_name()
        if grid is None or column is None or self.page is None:
            return None
        value = self.page.data.column(column)[grid.cursor_row].as_py()
        return column, value

    def open_cursor_row(self) -> None:
        grid = self._grid()
        if grid is None or self.source is None or self.page is None:
            return
        table = self.source.table
        if table.kind == "rel" and len(table.endpoints) == 1:
            end = "_to" if self.cursor_column_name() == "_to" else "_from"
            node_table = table.endpoints[0][1 if end == "_to" else 0]
            value = self.page.data.column(end)[grid.cursor_row].as_py()
            self.post_message(self.RowOpened(self, self.source, node_table, str(value)))
            return
        if table.primary_key is None:
            self.notify(f"{table.name} rows have no key to open", severity="warning")
            return
        value = self.page.data.column(table.primary_key)[grid.cursor_row].as_py()
        self.post_message(self.RowOpened(self, self.source, table.name, str(value)))

    def on_data_table_cell_selected(self, event: DataTable.CellSelected) -> None:
        event.stop()
        self.open_cursor_row()

    def _cell_width(self) -> int:
        """Cells fit the pane: at least three columns show in a narrow window (long
        ids are cut there; v shows a whole value), up to MAX_CELL_WIDTH when wide."""
        width = self.size.width
        if not width and self.parent is not None:
            # A page that comes before the table's first arrangement (a quick store):
            # the width its row leaves it, not 0.
            others = sum(w.outer_size.width for w in self.parent.children if w is not self)
            width = max(0, self.parent.size.width - others)
        return min(MAX_CELL_WIDTH, max(MIN_CELL_WIDTH, width // 3 - 2))

    def _grid(self) -> DataTable | None:
        grids = self.query("#grid").results(DataTable)
        return next(iter(grids), None)

    def focus_rows(self) -> None:
        grid = self._grid()
        (grid or self).focus()


def _base64_columns(page: Page) -> list[str]:
    """Columns whose values on this page include base64 of JSON (the cells show
    the stored text; the value view decodes it)."""
    return [
        name
        for name in page.data.column_names
        if any(stored_json_text(value) for value in page.data.column(name).to_pylist())
    ]
