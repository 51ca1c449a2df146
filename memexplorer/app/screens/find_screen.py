"""Find a text anywhere (ctrl+f): every store and agent under the folder the app opened.

The search runs in a thread worker and shows each group (one agent's rows of one
table of one store) as it arrives, so the first results are on screen while the
rest is searched. ``escape`` stops a running search at once (its next checkpoint,
and the query running is interrupted); with none running it closes the screen.
A group shows a page of hits; ``enter`` on its "more" row reads the next page.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.message import Message
from textual.widgets import DataTable, Footer, Header, Input, Static
from textual.worker import Worker, WorkerState

from memexplorer.app.literal import cell
from memexplorer.app.operator_session import OperatorSession
from memexplorer.app.screens.find_commands import FIND_COMMANDS
from memexplorer.app.screens.operator_screen import OperatorScreen
from memexplorer.app.widgets.node_ref import NodeRef
from memexplorer.app.widgets.worker_errors import report_failed_worker
from memexplorer.operator.browse import StoreBrowser
from memexplorer.operator.find import FindGroup, FindHit, FindSkipped, find_page, find_text
from memexplorer.operator.wording import counted
from memexplorer.storage.exceptions import MemoryError
from memexplorer.storage.progress import TaskControl

_PLURAL = {"fact": "facts", "episode": "episodes", "experience": "experiences",
           "memory": "memories"}  # fmt: skip


#: Characters of a key shown: enough to tell rows apart; enter opens the whole one.
KEY_WIDTH = 14


def short_key(key: str) -> str:
    return key if len(key) <= KEY_WIDTH else key[: KEY_WIDTH - 1] + "…"


def _place(store: Path, root: Path) -> str:
    try:
        return str(store.relative_to(root)) or store.name
    except ValueError:
        return str(store)


class FindScreen(OperatorScreen[None]):
    """Facts, episodes, experiences and flat memories that contain a text."""

    SCREEN_COMMANDS = FIND_COMMANDS
    HELP = (
        "Find a text in every store and agent under the folder you opened: facts, "
        "episodes, experiences and flat memories, case-insensitive, grouped by store and "
        "agent. Type and press enter; escape stops a search that is running. Enter on a "
        "result opens its node; on a group's last row it shows more."
    )
    CSS_PATH = "find_screen.tcss"

    @dataclass
    class Found(Message):
        search: int
        group: FindGroup

    @dataclass
    class More(Message):
        group: int
        hits: list[FindHit]

    def __init__(self, session: OperatorSession, text: str = "") -> None:
        super().__init__(session)
        self.root = session.root
        self.text = text
        self.groups: list[FindGroup] = []
        self.control: TaskControl | None = None
        #: Each search's number: a late group of a search replaced by another is dropped.
        self.search = 0
        self.searching = False
        #: Stores the last search could not read (locked, damaged), and why.
        self.skipped: list[FindSkipped] = []
        #: The store the search reads now: a stop interrupts its query.
        self.reading: Path | None = None

    def compose(self) -> ComposeResult:
        yield Header()
        yield Input(self.text, placeholder="text to find (enter searches)", id="find-text")
        yield Static("", id="find-status", markup=False)  # names the text sought
        results: DataTable[str | Text] = DataTable(id="find-results", cursor_type="row")
        yield results
        yield Footer()

    def on_mount(self) -> None:
        self.sub_title = f"find in {self.root}"
        table = self.query_one("#find-results", DataTable)
        table.add_columns("key", "found")
        self.query_one("#find-text", Input).focus()
        if self.text:
            self.start(self.text)

    @on(Input.Submitted, "#find-text")
    def submitted(self, event: Input.Submitted) -> None:
        if event.value.strip():
            self.start(event.value)

    def start(self, text: str) -> None:
        """Stop any search that runs, clear the results, search for ``text``."""
        self.stop()
        self.text = text.strip()
        self.search += 1
        self.groups = []
        self.query_one("#find-results", DataTable).clear()
        self.control = TaskControl()
        self.searching = True
        self._status(f"searching for {self.text!r}… (escape stops)")
        self.run_search(self.text, self.control, self.search)

    @work(thread=True, exclusive=True, group="find", exit_on_error=False)
    def run_search(self, text: str, control: TaskControl, search: int) -> None:
        def opener(path: Path) -> StoreBrowser:
            self.reading = path
            return self.session.browser(path)

        skipped: list[FindSkipped] = []
        self.skipped = skipped
        try:
            found = find_text(self.root, text, open_store=opener, control=control,
                              skipped=skipped)  # fmt: skip
            for group in found:
                self.post_message(self.Found(search, group))
        except MemoryError:
            if not control.cancelled:  # a stop the operator asked for is no error
                raise

    def stop(self) -> bool:
        """Cancel the running search; True if one was running."""
        if not self.searching or self.control is None:
            return False
        self.control.cancel()
        if self.reading is not None:
            self.session.browser(self.reading).interrupt()
        self.searching = False
        self._status(f"stopped: {self._summary()} (enter searches again)")
        return True

    def _summary(self) -> str:
        hits = sum(group.total for group in self.groups)
        stores = len({group.store for group in self.groups})
        return f"{counted(hits, 'result')} in {counted(stores, 'store')}"

    def _status(self, text: str) -> None:
        self.query_one("#find-status", Static).update(text)

    def on_find_screen_found(self, message: Found) -> None:
        if message.search != self.search or not self.searching:
            return
        self.groups.append(message.group)
        self._add_group(len(self.groups) - 1)
        self._status(f"searching for {self.text!r}… {self._summary()} so far (escape stops)")

    def _add_group(self, index: int) -> None:
        group = self.groups[index]
        table = self.query_one("#find-results", DataTable)
        noun = group.item if group.total == 1 else _PLURAL[group.item]
        earlier = self.groups[index - 1] if index else None
        if earlier is None or (earlier.store, earlier.agent) != (group.store, group.agent):
            place = f"{group.agent or '(no agent)'} · {_place(group.store, self.root)}"
            table.add_row("", Text(place, style="bold"), key=f"s{index}")
        table.add_row("", Text(f"{group.total:,} {noun} in {group.table.name}", style="dim"),
                      key=f"g{index}")  # fmt: skip
        for number, hit in enumerate(group.hits):
            self._add_hit(index, number, hit)
        self._add_more(index)

    def _add_hit(self, index: int, number: int, hit: FindHit) -> None:
        table = self.query_one("#find-results", DataTable)
        found = Text(f"{hit.column}: ", style="dim").append(hit.snippet)
        table.add_row(cell(short_key(hit.key)), found, key=f"h{index}.{number}")

    def _add_more(self, index: int) -> None:
        group = self.groups[index]
        left = group.total - len(group.hits)
        if left > 0:
            self.query_one("#find-results", DataTable).add_row(
                "", Text(f"… {left:,} more: enter shows them", style="italic"),
                key=f"m{index}.{len(group.hits)}",
            )  # fmt: skip

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.worker.group != "find":
            return
        if event.state == WorkerState.SUCCESS and self.searching:
            self.searching = False
            found = self._summary() if self.groups else f"nothing contains {self.text!r}"
            missed = (
                f" · {counted(len(self.skipped), 'store')} not searched" if self.skipped else ""
            )
            self._status(f"done: {found}{missed}")
            for store in self.skipped:
                self.notify(store.reason, title=f"Not searched: {store.store.name}",
                            severity="warning")  # fmt: skip
        elif event.state in (WorkerState.ERROR, WorkerState.CANCELLED):
            self.searching = False
            if event.state == WorkerState.ERROR:
                report_failed_worker(event, self.session)

    @on(DataTable.RowSelected, "#find-results")
    def row_chosen(self, event: DataTable.RowSelected) -> None:
        key = str(event.row_key.value)
        kind, _, place = key.partition(".")
        index = int(kind[1:])
        group = self.groups[index]
        if kind.startswith("h"):
            hit = group.hits[int(place)]
            self.session.open_node(NodeRef(group.store, group.table.name, hit.key))
        elif kind.startswith("m"):
            self.read_more(index, self.text)

    @work(thread=True, group="find-more", exit_on_error=False)
    def read_more(self, index: int, text: str) -> None:
        group = self.groups[index]
        browser = self.session.browser(group.store)
        self.post_message(self.More(index, find_page(browser, group, text, len(group.hits))))

    def on_find_screen_more(self, message: More) -> None:
        """The next page of a group: its rows replace the "more" row, in place."""
        table = self.query_one("#find-results", DataTable)
        group = self.groups[message.group]
        more_key = f"m{message.group}.{len(group.hits)}"
        if more_key not in table.rows:
            return
        row = table.get_row_index(more_key)
        group.hits.extend(message.hits)
        # Rows cannot be inserted in a DataTable: every group is drawn again, the
        # cursor on the first new hit.
        table.clear()
        for index in range(len(self.groups)):
            self._add_group(index)
        table.move_cursor(row=row)

    # -- commands ------------------------------------------------------------------------
    def action_stop_or_close(self) -> None:
        if not self.stop():
            self.app.pop_screen()

    def action_focus_text(self) -> None:
        self.query_one("#find-text", Input).focus()
