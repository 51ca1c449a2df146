"""The credential audit of every store under the open folder, and redacting what it found.

The scan is the engine's (:func:`audit_paths`, read-only, in a worker); previews come masked
from it, so the screen never shows a secret. Redaction goes through :func:`redact_findings`,
which saves the rows it changes to a backup first; **u** then restores them, like a clean's Undo.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.message import Message
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Static
from textual.worker import Worker

from memexplorer.app.screens.audit_commands import AUDIT_COMMANDS
from memexplorer.app.screens.audit_labels import SORTS, node_ref, same_value, store_labels, trimmed
from memexplorer.app.screens.operator_actions import UNDO_SECONDS, OperatorActions, operator_home
from memexplorer.app.screens.redact_modal import RedactModal, plan_changes
from memexplorer.app.session_mode import write_action
from memexplorer.app.widgets.worker_errors import report_failed_worker
from memexplorer.operator.audit import AuditFinding, AuditReport, audit_paths
from memexplorer.operator.backups import BackupRecord, RestoreResult, restore_backup
from memexplorer.operator.read_only_session import read_only_label
from memexplorer.operator.redaction import RedactionResult, redact_findings
from memexplorer.operator.wording import counted


class AuditScreen(Screen[None]):
    """Every credential stored under the open folder, each a link to its node."""

    HELP = (
        "Every secret the audit found in the stores under the open folder: store, agent, "
        "table, column, kind and a preview in which the secret is masked. **enter** opens "
        "the finding's node; **space** selects a finding, **a** selects all (again: none); "
        "**d** (or ctrl+s) redacts the selected ones after a confirm that lists every value "
        "that changes. The rows are backed up first: **u** undoes while the notification "
        "is up, and the Backups screen (**b** on the stores screen) restores any backup."
    )
    SCREEN_COMMANDS = AUDIT_COMMANDS
    BINDINGS = AUDIT_COMMANDS.bindings()
    CSS_PATH = "audit_screen.tcss"

    @dataclass
    class Audited(Message):
        report: AuditReport

    @dataclass
    class Redacted(Message):
        results: list[RedactionResult]

    @dataclass
    class Restored(Message):
        results: list[RestoreResult]

    def __init__(self, root: Path) -> None:
        super().__init__()
        self.root = root
        self.report: AuditReport | None = None
        self.selected: set[int] = set()
        self.sort = SORTS[0]
        self.running = False
        self.undo: tuple[list[BackupRecord], float] | None = None

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

    def on_audit_screen_audited(self, message: Audited) -> None:
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

    # -- commands ------------------------------------------------------------------------
    @on(DataTable.RowSelected, "#findings")
    def action_open_finding(self) -> None:
        finding = self.cursor_finding()
        if finding is None:
            return
        ref, note = node_ref(finding)
        if ref is None:
            self.notify(f"{finding.table} {finding.id}: {note}", severity="warning")
            return
        self.app.open_node(ref)  # type: ignore[attr-defined]

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

    def action_audit_again(self) -> None:
        if not self.running:
            self.start_audit()

    def action_close(self) -> None:
        if self.running:  # a redaction or restore finishes (or rolls back) first
            self.notify("Writing to the stores: this closes once the write has finished",
                        severity="warning")  # fmt: skip
            return
        self.dismiss(None)

    # -- redact and undo -----------------------------------------------------------------
    def homes(self, findings: list[AuditFinding]) -> dict[Path, Path]:
        """Where each store's backups go (as for a clean: the home holding it)."""
        paths = {f.location.path for f in findings}
        return {path: operator_home(self.root, path) for path in paths}

    @write_action("Redaction")
    def action_redact(self) -> None:
        if self.report is None or self.running:
            return
        chosen = [self.report.findings[i] for i in sorted(self.selected)]
        if not chosen:
            self.notify("Select findings first: space selects one, a selects all",
                        severity="warning")  # fmt: skip
            return
        changes = plan_changes(chosen, self.report.findings, self.homes(chosen))
        labels = store_labels({f.store for f in self.report.findings}, self.root)
        self.app.push_screen(RedactModal(changes, labels),
                             lambda ok: self.confirmed(chosen) if ok else None)  # fmt: skip

    def confirmed(self, chosen: list[AuditFinding]) -> None:
        self.running = True
        for path in {f.location.path for f in chosen}:  # kuzu: one database per file
            self.app.browsers.forget(path)  # type: ignore[attr-defined]
        self.query_one("#findings", DataTable).loading = True
        self.query_one("#status", Static).update("Backing up, then redacting…")
        self.run_redact(chosen, self.homes(chosen))

    @work(thread=True, exclusive=True, group="redact", exit_on_error=False)
    def run_redact(self, chosen: list[AuditFinding], homes: dict[Path, Path]) -> None:
        results: list[RedactionResult] = []
        for path, home in homes.items():
            mine = [f for f in chosen if f.location.path == path]
            results += redact_findings(mine, home=home)
        self.post_message(self.Redacted(results))

    def on_audit_screen_redacted(self, message: Redacted) -> None:
        self.running = False
        results = message.results
        backups = [r.backup for r in results if r.backup is not None]
        changed = sum(r.changed for r in results)
        self.after_write([r.store for r in results])
        skipped = [what for r in results for what in r.not_redacted]
        skipped += [f"{r.store} ({r.refused})" for r in results if r.refused]
        if skipped:
            self.notify("Not redacted: " + "; ".join(skipped), severity="warning")
        if not backups:
            self.notify("Nothing needed redacting any more: nothing was changed")
            return
        self.undo = (backups, time.monotonic() + UNDO_SECONDS)
        rewritten = counted(sum(r.compaction is not None for r in results), "graph store")
        self.notify(
            f"Redacted {counted(changed, 'value')} in {counted(len(backups), 'store')}; "
            f"{rewritten} rewritten, old bytes removed. Press u to undo "
            f"(backup {', '.join(b.path.name for b in backups)}, which keeps the old values "
            "until deleted).",
            title="Redacted", timeout=UNDO_SECONDS,
        )  # fmt: skip
        if kept := [f"{r.store} ({r.not_compacted})" for r in results if r.not_compacted]:
            self.notify("Old values still in the bytes of " + "; ".join(kept), severity="warning")

    def action_undo(self) -> None:
        if self.running:
            return
        if self.undo is None or time.monotonic() > self.undo[1]:
            self.notify("Nothing to undo now; restore older redactions from Backups (b on "
                        "the stores screen)", severity="warning")  # fmt: skip
            return
        backups, self.undo = self.undo[0], None
        self.app.clear_notifications()  # the Undo offer is taken
        self.running = True
        for record in backups:
            self.app.browsers.forget(record.store)  # type: ignore[attr-defined]
        self.query_one("#findings", DataTable).loading = True
        self.run_restore([record.path for record in backups])

    @work(thread=True, exclusive=True, group="restore", exit_on_error=False)
    def run_restore(self, backups: list[Path]) -> None:
        self.post_message(self.Restored([restore_backup(path) for path in backups]))

    def on_audit_screen_restored(self, message: Restored) -> None:
        self.running = False
        restored = sum(result.restored for result in message.results)
        self.after_write([result.store for result in message.results])
        stores = counted(len(message.results), "store")
        self.notify(f"Restored {counted(restored, 'row')} in {stores}", title="Undone")

    def after_write(self, stores: list[Path]) -> None:
        """Our own write is no outside change; the stores screen reloads; audit again."""
        self.app.store_watch.accept(stores)  # type: ignore[attr-defined]
        for screen in self.app.screen_stack:
            if isinstance(screen, OperatorActions):
                screen.reload_after_write()
        self.start_audit()

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if not report_failed_worker(event):
            return
        self.query_one("#findings", DataTable).loading = False
        if event.worker.group in ("redact", "restore"):
            self.running = False
            self.start_audit()  # what is in the stores now (a failed write rolls back)
        else:
            self.query_one("#status", Static).update("The audit failed (see the error).")
