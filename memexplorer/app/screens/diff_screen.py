"""What changed in an agent's memory between two points: per table, and its chains.

Left: each table with its counts (added, removed, changed) and the chains that
moved. Right: the chosen table's records, + added, - removed, ~ changed with each
changed field's old and new value. Both sides are read in a thread worker,
read-only (:func:`memexplorer.operator.diff_report.diff_memory`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.message import Message
from textual.widgets import DataTable, Footer, Header, Static
from textual.worker import Worker

from memexplorer.app.literal import cell, literal
from memexplorer.app.operator_session import OperatorSession
from memexplorer.app.screens.diff_commands import DIFF_COMMANDS
from memexplorer.app.screens.operator_screen import OperatorScreen
from memexplorer.app.widgets.node_ref import NodeRef
from memexplorer.app.widgets.worker_errors import report_failed_worker
from memexplorer.operator.diff_report import DiffReport, diff_memory
from memexplorer.operator.memory_diff import TableDiff

_CHAINS = "chains"
#: Records of each kind (added, removed, changed) shown per table: a table of a
#: hundred thousand rows would take seconds to draw, and nobody reads that far.
MAX_ROWS = 1000
#: Characters of a key shown (a uuid's first block and a bit): enough to tell rows apart.
_KEY_WIDTH = 14
_MARKS = {"+": "green", "-": "red", "~": "yellow", "→": "cyan"}


def _short(value: Any, width: int = 56) -> str:
    text = " ".join(str(value).split())
    return text if len(text) <= width else text[: width - 1] + "…"


def _label(table: TableDiff, record: dict[str, Any]) -> tuple[str, Text]:
    if table.kind == "rel":
        return f"{record['source_id']} → {record['target_id']}", Text("")
    what = Text()
    if record.get("concept"):
        what.append(f"{record['concept']}: ", style="bold")
    return str(record["memory_id"]), what.append(_short(record.get("content", "")))


class DiffScreen(OperatorScreen[None]):
    """An agent's memory at two points: what was added, removed and changed."""

    SCREEN_COMMANDS = DIFF_COMMANDS
    HELP = (
        "What changed from A (the earlier: a snapshot, a backup, an export) to B (usually "
        "the agent now). Facts are matched by memory id, then by concept (one fact on each "
        "side); edges by their two ends. A chain moved on when its current value changed. "
        "Nothing is written: both sides are read read-only."
    )
    CSS_PATH = "diff_screen.tcss"

    @dataclass
    class Compared(Message):
        report: DiffReport

    def __init__(
        self, session: OperatorSession, a: Path, b: Path, *, agent: str | None, home: Path | None
    ) -> None:
        super().__init__(session)
        self.a, self.b, self.agent, self.home = a, b, agent, home
        self.report: DiffReport | None = None
        self.shown = ""
        #: The whole key of each row of the changes (the table shows the start of it).
        self.keys: dict[str, str] = {}

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(Text("comparing…", style="dim"), id="diff-sides")
        with Horizontal():
            tables: DataTable[str | Text] = DataTable(id="diff-tables", cursor_type="row")
            tables.border_title = "tables"
            yield tables
            records: DataTable[str | Text] = DataTable(id="diff-records", cursor_type="row")
            records.border_title = "changes"
            yield records
        yield Footer()

    def on_mount(self) -> None:
        self.sub_title = f"what changed · {self.agent or ''}"
        self.query_one("#diff-tables", DataTable).add_columns("table", "+", "-", "~")
        self.query_one("#diff-records", DataTable).add_columns("", "key", "what")
        self.loading = True
        self.compare()

    @work(thread=True, exclusive=True, group="diff", exit_on_error=False)
    def compare(self) -> None:
        report = diff_memory(self.a, self.b, agent=self.agent, home=self.home)
        self.post_message(self.Compared(report))

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if report_failed_worker(event, self.session):
            self.loading = False
            self.query_one("#diff-sides", Static).update(Text("cannot compare", style="red"))

    def on_diff_screen_compared(self, message: Compared) -> None:
        self.loading = False
        report = self.report = message.report
        self.sub_title = f"what changed · {report.b.agent or report.a.agent}"
        sides = Text()
        for name, side in (("A", report.a), ("B", report.b)):
            when = side.taken_at[:19].replace("T", " ")
            sides.append(f"{name} ", style="bold")
            sides.append(f"{side.kind} · {when} · {side.path}\n")
        if report.diff.empty:
            sides.append("no differences", style="green")
        sides.rstrip()
        self.query_one("#diff-sides", Static).update(sides)
        tables = self.query_one("#diff-tables", DataTable)
        for table in report.diff.tables:
            if table.skipped:
                tables.add_row(cell(table.table), "", "", Text("n/a", style="dim"), key=table.table)
                continue
            counts = (len(table.added), len(table.removed), len(table.changed))
            tables.add_row(cell(table.table), *(Text(str(n), style="dim" if not n else "bold")
                                          for n in counts), key=table.table)  # fmt: skip
        chains = len(report.diff.chains)
        tables.add_row(_CHAINS, Text(str(chains), style="bold" if chains else "dim"), "", "",
                       key=_CHAINS)  # fmt: skip
        tables.focus()
        self._show(report.diff.tables[0].table)

    @on(DataTable.RowHighlighted, "#diff-tables")
    def table_highlighted(self, event: DataTable.RowHighlighted) -> None:
        if event.row_key.value is not None:
            self._show(str(event.row_key.value))

    @on(DataTable.RowSelected, "#diff-tables")
    def table_selected(self) -> None:
        self.query_one("#diff-records", DataTable).focus()

    def _show(self, name: str) -> None:
        if self.report is None or name == self.shown:
            return
        self.shown = name
        records = self.query_one("#diff-records", DataTable)
        records.clear()
        self.keys.clear()
        records.border_title = literal(name)
        if name == _CHAINS:
            for number, chain in enumerate(self.report.diff.chains):
                before = "; ".join(_short(h["content"], 30) for h in chain.before)
                after = "; ".join(_short(h["content"], 30) for h in chain.after)
                what = Text(f"{chain.concept}: ", style="bold").append(f"{before} → {after}")
                what.append(f"  moved {chain.direction}, {chain.new_steps} new", style="dim")
                head = chain.after[0]["memory_id"] if chain.after else ""
                self._add(records, Text("→", style="cyan"), what, head, f"c{number}")
            return
        table = self.report.diff.table(name)
        if table.skipped:
            records.add_row("", "", Text(f"not compared: {table.skipped}", style="dim"))
            return
        for mark, items in (("+", table.added), ("-", table.removed)):
            for number, record in enumerate(items[:MAX_ROWS]):
                key, what = _label(table, record)
                self._add(records, Text(mark, style=_MARKS[mark]), what, key, f"{mark}{number}")
            self._more(records, mark, len(items))
        for number, change in enumerate(table.changed[:MAX_ROWS]):
            fields = ", ".join(f"{field}: {_short(a, 30)} → {_short(b, 30)}"
                               for field, (a, b) in change.fields.items())  # fmt: skip
            if change.matched_by == "concept":
                fields = f"(was {change.old_key}, same concept) {fields}"
            self._add(records, Text("~", style=_MARKS["~"]), Text(fields), change.key, f"~{number}")
        self._more(records, "~", len(table.changed))
        if not records.row_count:
            records.add_row("", "", Text("no changes in this table", style="dim"))

    def _add(self, records: DataTable, mark: Text, what: Text, key: str, row: str) -> None:
        shown = key if len(key) <= _KEY_WIDTH else key[: _KEY_WIDTH - 1] + "…"
        self.keys[row] = key
        records.add_row(mark, cell(shown), what, key=row)

    @staticmethod
    def _more(records: DataTable, mark: str, count: int) -> None:
        """Past MAX_ROWS of a kind, one row says how many more and where to see them."""
        if count > MAX_ROWS:
            more = Text(f"… {count - MAX_ROWS:,} more; memexplorer diff A B --json lists "
                        "every one", style="italic")  # fmt: skip
            records.add_row(Text(mark, style=_MARKS[mark]), "", more, key=f"{mark}more")

    def action_open_record(self) -> None:
        """The node of the fact or episode under the cursor, in the store B reads."""
        report, records = self.report, self.query_one("#diff-records", DataTable)
        if report is None or report.b.kind != "store" or not records.row_count:
            self.notify("Open works when B is a store and a fact is chosen", severity="warning")
            return
        table = self.shown if self.shown != _CHAINS else "SemanticMemory"
        row = records.coordinate_to_cell_key(records.cursor_coordinate).row_key.value
        key = self.keys.get(str(row), "")
        if table not in ("SemanticMemory", "EpisodicMemory") or not key:
            self.notify("Choose a fact or an episode", severity="warning")
            return
        self.session.open_node(NodeRef(report.b.path, table, key))

    def action_close(self) -> None:
        self.app.pop_screen()
