"""The credential audit of every store under the open folder, and redacting what it found.

The scan is the engine's (:func:`audit_paths`, read-only, in a worker); previews come masked
from it, so the screen never shows a secret. Redaction goes through :func:`redact_findings`,
which saves the rows it changes to a backup first; **u** then restores them, like a clean's Undo.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from textual import on, work
from textual.message import Message
from textual.widgets import DataTable, Static
from textual.worker import Worker

from memexplorer.app.operator_session import OperatorSession
from memexplorer.app.screens.audit_commands import AUDIT_COMMANDS
from memexplorer.app.screens.audit_findings import AuditFindings
from memexplorer.app.screens.audit_labels import node_ref, store_labels
from memexplorer.app.screens.operator_actions import OperatorActions
from memexplorer.app.screens.redact_modal import RedactModal, plan_changes
from memexplorer.app.session_mode import write_action
from memexplorer.app.widgets.worker_errors import report_failed_worker
from memexplorer.operator.audit import AuditFinding
from memexplorer.operator.backup_records import RestoreResult
from memexplorer.operator.backups import restore_backup
from memexplorer.operator.redaction import RedactionResult, redact_findings
from memexplorer.operator.wording import counted


class AuditScreen(AuditFindings):
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
    CSS_PATH = "audit_screen.tcss"

    @dataclass
    class Redacted(Message):
        results: list[RedactionResult]

    @dataclass
    class Restored(Message):
        results: list[RestoreResult]

    def __init__(self, session: OperatorSession) -> None:
        super().__init__(session)
        self.running = False

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
        self.session.open_node(ref)

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
        return {path: self.session.home(path) for path in paths}

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
            self.session.forget(path)
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
        rewritten = counted(sum(r.compaction is not None for r in results), "graph store")
        self.offer_undo(
            backups,
            f"Redacted {counted(changed, 'value')} in {counted(len(backups), 'store')}; "
            f"{rewritten} rewritten, old bytes removed. Press u to undo "
            f"(backup {', '.join(b.path.name for b in backups)}, which keeps the old values "
            "until deleted).",
            "Redacted",
        )  # fmt: skip
        if kept := [f"{r.store} ({r.not_compacted})" for r in results if r.not_compacted]:
            self.notify("Old values still in the bytes of " + "; ".join(kept), severity="warning")

    def action_undo(self) -> None:
        if self.running:
            return
        backups = self.take_undo("redactions from Backups (b on the stores screen)")
        if backups is None:
            return
        self.app.clear_notifications()  # the Undo offer is taken
        self.running = True
        for record in backups:
            self.session.forget(record.store)
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
        self.session.wrote(stores)
        for screen in self.app.screen_stack:
            if isinstance(screen, OperatorActions):
                screen.reload_after_write()
        self.start_audit()

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if not report_failed_worker(event, self.session):
            return
        self.query_one("#findings", DataTable).loading = False
        if event.worker.group in ("redact", "restore"):
            self.running = False
            self.start_audit()  # what is in the stores now (a failed write rolls back)
        else:
            self.query_one("#status", Static).update("The audit failed (see the error).")
