"""The audit screen's findings table: the scan, its order, the selection, the status.

What the operator does with the findings (open, redact, undo) is the audit screen's
(audit_screen.py); this is what it shows and how the cursor and selection move.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.message import Message
from textual.widgets import DataTable, Footer, Header, Static

from memexplorer.app.operator_session import OperatorSession
from memexplorer.app.screens.audit_labels import SORTS, node_ref, same_value, store_labels, trimmed
from memexplorer.app.screens.undo_offer import UndoOffer
from memexplorer.operator.audit import AuditFinding, AuditReport, audit_paths
from memexplorer.operator.backup_records import BackupRecord
from memexplorer.operator.read_only_session import read_only_label


class AuditFindings(UndoOffer[list[BackupRecord]]):
    """The credentials the audit found under the session's folder, one row each."""

    @dataclass
    class Audited(Message):
        report: AuditReport

    def __init__(self, session: OperatorSession) -> None:
        super().__init__(session)
        self.root = session.root
        self.report: AuditReport | None = None
        self.selected: set[int] = set()
        self.sort = SORTS[0]

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(id="status", markup=False)
        yield DataTable(id="findings", cursor_type="row", zebra_stripes=True)
        yield Static(id="where", markup=False)
        yield Footer()

    def on_mount(self) -> None:
        self.sub_title = f"{read_only_label()} · {self.root}"
        table = self.query_one("#findings", DataTable)
        table.add_column("✓", key="mark")
        for name in ("store", "agent", "table", "column", "kind", "preview"):
            table.add_column(name, key=name)
        table.focus()
        self.start_audit()

    # -- the audit -----------------------------------------------------------------------
    def start_audit(self) -> None:
        self.title = "Credential audit: auditing…"
        self.query_one("#status", Static).update(f"Looking for credentials under {self.root}…")
        self.query_one("#findings", DataTable).loading = True
        self.run_audit(self.root)

    @work(thread=True, exclusive=True, group="audit", exit_on_error=False)
    def run_audit(self, root: Path) -> None:
        self.post_message(self.Audited(audit_paths([root])))

    def on_audit_findings_audited(self, message: Audited) -> None:
        report = self.report = message.report
        self.selected.clear()
        self.query_one("#findings", DataTable).loading = False
        self.title = f"Credential audit: {len(report.findings):,} findings"
        self.fill(same_finding=False)
        for error in report.errors:
            self.notify(f"{error.title}: {error.message}", title="Not audited",
                        severity="warning")  # fmt: skip

    def fill(self, *, same_finding: bool = True) -> None:
        """The findings in the current order, the cursor kept on the same finding (after
        a new audit, on the same line: the findings are new)."""
        table = self.query_one("#findings", DataTable)
        current, line = self.cursor_index(), table.cursor_row
        table.clear()
        findings = self.report.findings if self.report else []
        order = sorted(range(len(findings)), key=lambda i: (
            getattr(findings[i], self.sort), findings[i].store, findings[i].table, i))  # fmt: skip
        labels = store_labels({f.store for f in findings}, self.root)
        for index in order:
            f = findings[index]
            preview = trimmed(f.preview, f.kind)
            cells = (labels[f.store], f.agent, f.table, f.column, f.kind, preview)
            table.add_row(self.mark(index), *(Text(cell) for cell in cells), key=str(index))
        if same_finding and current is not None and str(current) in table.rows:
            table.move_cursor(row=table.get_row_index(str(current)))
        elif not same_finding:
            table.move_cursor(row=min(line, max(table.row_count - 1, 0)))
        self.show_status()

    def mark(self, index: int) -> Text:
        return Text("✓", style="bold") if index in self.selected else Text(" ")

    def show_status(self) -> None:
        report = self.report
        if report is None:
            return
        values = len({(f.store, f.table, f.id, f.column) for f in report.findings})
        stores = len({f.store for f in report.findings})
        self.query_one("#status", Static).update(
            f"{len(report.findings):,} secrets in {values:,} values of {stores} stores "
            f"({len(report.stores)} audited) · {len(self.selected):,} selected · sorted by "
            f"{self.sort}" + (f" · {len(report.errors)} not audited" if report.errors else "")
        )
        self.show_where()

    def cursor_index(self) -> int | None:
        table = self.query_one("#findings", DataTable)
        if self.report is None or not table.row_count:
            return None
        key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        return int(key) if key is not None else None

    def cursor_finding(self) -> AuditFinding | None:
        index = self.cursor_index()
        return self.report.findings[index] if self.report and index is not None else None

    @on(DataTable.RowHighlighted, "#findings")
    def show_where(self) -> None:
        finding = self.cursor_finding()
        where = self.query_one("#where", Static)
        if finding is None:
            where.update("No credentials found." if self.report else "")
            return
        note = node_ref(finding)[1]
        where.update(f"{finding.store} · {finding.table} {finding.id} · {finding.column}: "
                     f"{finding.preview} · {note}")  # fmt: skip

    def action_toggle_selected(self) -> None:
        index = self.cursor_index()
        if index is None:
            return
        findings = self.report.findings if self.report else []
        where = findings[index].location
        value = {i for i, f in enumerate(findings) if same_value(f.location, where)}
        self.selected = self.selected - value if index in self.selected else self.selected | value
        table = self.query_one("#findings", DataTable)
        for other in value:  # redaction scrubs the whole value: its findings go together
            table.update_cell(str(other), "mark", self.mark(other))
        table.action_cursor_down()
        self.show_status()

    def action_select_all(self) -> None:
        if self.report is None:
            return
        every = set(range(len(self.report.findings)))
        self.selected = set() if self.selected == every else every
        self.fill()

    def action_sort(self) -> None:
        self.sort = SORTS[(SORTS.index(self.sort) + 1) % len(SORTS)]
        self.fill()
