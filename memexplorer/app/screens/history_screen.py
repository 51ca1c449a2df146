"""An agent's past on a timeline: its snapshots and the backups that hold it, newest
first, each opening what changed from then to now (:class:`.diff_screen.DiffScreen`).

``s`` keeps a snapshot of the agent now (a dated export under the home's
``backups/.snapshots``), so the next look can say what it learned since.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.message import Message
from textual.widgets import DataTable, Footer, Header, Static
from textual.worker import Worker

from memexplorer.app.literal import cell
from memexplorer.app.operator_session import OperatorSession
from memexplorer.app.screens.diff_screen import DiffScreen
from memexplorer.app.screens.history_commands import HISTORY_COMMANDS
from memexplorer.app.screens.operator_screen import OperatorScreen
from memexplorer.app.session_mode import write_action
from memexplorer.app.widgets.worker_errors import report_failed_worker
from memexplorer.operator.snapshots import TimelineEntry, agent_timeline, take_snapshot
from memexplorer.operator.wording import counted


class HistoryScreen(OperatorScreen[None]):
    """The points in an agent's past that a diff can start from."""

    SCREEN_COMMANDS = HISTORY_COMMANDS
    HELP = (
        "The agent's snapshots (s keeps one now) and the backups memexplorer took before "
        "changing its store, newest first. Enter (or d) shows what changed from that point "
        "to the agent's memory now. Snapshots live in the home's backups/.snapshots folder, "
        "where no agent and no store search looks."
    )
    CSS_PATH = "history_screen.tcss"

    @dataclass
    class Listed(Message):
        entries: list[TimelineEntry]
        note: str = ""

    def __init__(self, session: OperatorSession, store: Path, agent: str) -> None:
        super().__init__(session)
        self.store, self.agent, self.home = store, agent, session.home(store)
        self.entries: list[TimelineEntry] = []

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(Text(f"{self.agent}: loading its history…", style="dim"),
                     id="history-title")  # fmt: skip
        table: DataTable[str | Text] = DataTable(id="history", cursor_type="row")
        yield table
        yield Footer()

    def on_mount(self) -> None:
        self.sub_title = f"history · {self.agent} · {self.store}"
        self.query_one("#history", DataTable).add_columns("when (UTC)", "what", "where")
        self.load()

    @work(thread=True, exclusive=True, group="history", exit_on_error=False)
    def load(self, note: str = "") -> None:
        self.post_message(self.Listed(agent_timeline(self.agent, self.home, self.store), note))

    @work(thread=True, exclusive=True, group="history", exit_on_error=False)
    def snap(self) -> None:
        snapshot = take_snapshot(self.agent, home=self.home, storage_path=self.store)
        note = f"kept a snapshot: {snapshot.path.name}"
        self.post_message(self.Listed(agent_timeline(self.agent, self.home, self.store), note))

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        report_failed_worker(event, self.session)

    def on_history_screen_listed(self, message: Listed) -> None:
        self.entries = message.entries
        table = self.query_one("#history", DataTable)
        table.clear()
        for index, entry in enumerate(self.entries):
            style = "cyan" if entry.kind == "snapshot" else "yellow"
            table.add_row(entry.taken_at.strftime("%Y-%m-%d %H:%M:%S"),
                          Text(entry.label, style=style), cell(self._where(entry.path)),
                          key=str(index))  # fmt: skip
        title = Text(f"{self.agent}: ", style="bold")
        if self.entries:
            title.append(f"{counted(len(self.entries), 'point')} to compare with now, newest "
                         "first (enter: what changed since)")  # fmt: skip
        else:
            title.append("no snapshots or backups yet; s keeps a snapshot now", style="dim")
        if message.note:
            title.append(f"\n{message.note}", style="green")
        self.query_one("#history-title", Static).update(title)
        table.focus()

    def _where(self, path: Path) -> str:
        try:
            return str(path.relative_to(self.home))
        except ValueError:
            return str(path)

    @on(DataTable.RowSelected, "#history")
    def chosen(self) -> None:
        self.action_diff()

    def action_diff(self) -> None:
        entry = self.row_at_cursor(
            "#history", self.entries, "Nothing to compare yet: s keeps a snapshot"
        )
        if entry is None:
            return
        self.app.push_screen(
            DiffScreen(self.session, entry.path, self.store, agent=self.agent, home=self.home)
        )

    @write_action("A snapshot (it writes a file on this machine)")
    def action_snapshot(self) -> None:
        self.snap()

    def action_close(self) -> None:
        self.app.pop_screen()
