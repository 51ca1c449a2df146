"""The backups clean and redaction wrote under a home, and restoring any of them."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widgets import Button, DataTable, Footer, Header, Static
from textual.worker import Worker

from memexplorer.app.literal import cell
from memexplorer.app.operator_session import OperatorSession
from memexplorer.app.screens.backups_commands import BACKUPS_COMMANDS, RESTORE_COMMANDS
from memexplorer.app.screens.modal_dialog import DIALOG_CSS
from memexplorer.app.screens.operator_screen import OperatorModal, OperatorScreen
from memexplorer.app.session_mode import write_action
from memexplorer.app.widgets.worker_errors import report_failed_worker
from memexplorer.operator.backup_diff import StoreDifference, whole_store_difference
from memexplorer.operator.backup_records import BackupRecord, RestoreResult, list_backups
from memexplorer.operator.backups import restore_backup
from memexplorer.operator.wording import (
    counted,
    distinct_places,
    restored_summary,
    rows_and_edges,
    whole_store_question,
)


class ConfirmRestore(OperatorModal[bool]):
    """Ask before a restore, saying what it will do: saved rows written back, or the
    whole store put back as it was (with what that undoes, computed from the copy)."""

    CSS_PATH = [DIALOG_CSS, "backups_screen.tcss"]
    SCREEN_COMMANDS = RESTORE_COMMANDS

    @dataclass
    class Compared(Message):
        difference: StoreDifference

    def __init__(self, session: OperatorSession, record: BackupRecord) -> None:
        super().__init__(session)
        self.record = record

    def compose(self) -> ComposeResult:
        record = self.record
        with Vertical():
            if record.whole_store:
                text = (f"Put back the WHOLE of {record.store} as it was at "
                        f"{record.created_at:%Y-%m-%d %H:%M:%S} UTC (before a "
                        f"{record.action})? Comparing the copy with the store now…")  # fmt: skip
            elif record.restore_mode == "merge":
                text = (f"Take back the merge of {record.created_at:%Y-%m-%d %H:%M} UTC in "
                        f"{record.store}: remove the edges it added and put its facts' values "
                        "back? Refused if they changed since.")  # fmt: skip
            else:
                nodes = sum(c for name, c in record.counts.items() if not name.isupper())
                edges = sum(record.counts.values()) - nodes
                note = ("\n\nIt was restored before: rows already there are left as they are."
                        if record.restored else "")  # fmt: skip
                text = (f"Write {rows_and_edges(nodes, edges)} saved by a {record.action} of "
                        f"{record.created_at:%Y-%m-%d %H:%M} UTC back into {record.store}?"
                        f"{note}")  # fmt: skip
            yield Static(text, id="what", markup=False)
            with Horizontal(id="buttons"):
                yield Button("Restore (y)", variant="warning", id="yes")
                yield Button("Cancel (esc)", id="no")

    def on_mount(self) -> None:
        if self.record.whole_store:
            self.query_one("#yes", Button).disabled = True  # until the comparison is shown
            self.compare()

    @work(thread=True, exclusive=True, group="compare", exit_on_error=False)
    def compare(self) -> None:
        current = self.session.browser(self.record.store)
        self.post_message(self.Compared(whole_store_difference(self.record, current)))

    def on_confirm_restore_compared(self, message: Compared) -> None:
        self.query_one("#what", Static).update(
            whole_store_question(self.record, message.difference)
        )
        self.query_one("#yes", Button).disabled = False

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if report_failed_worker(event, self.session):
            self.query_one("#yes", Button).disabled = False  # the operator may still choose

    def action_answer(self, answer: bool) -> None:
        if answer and self.query_one("#yes", Button).disabled:
            return  # not before the operator has seen what the restore undoes
        self.dismiss(answer)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")


class BackupsScreen(OperatorScreen[None]):
    """Every backup under the home, oldest first; restore any of them."""

    HELP = (
        "The backups written before every clean (and redaction), oldest first: when, what "
        "action, which store, the rows saved per table and whether they were restored. "
        "**enter** (or **r**) restores the one under the cursor after a confirm; rows that "
        "exist again are left as they are."
    )
    SCREEN_COMMANDS = BACKUPS_COMMANDS
    CSS_PATH = "backups_screen.tcss"

    @dataclass
    class Listed(Message):
        records: list[BackupRecord]

    @dataclass
    class Restored(Message):
        result: RestoreResult

    def __init__(self, session: OperatorSession, home: Path) -> None:
        super().__init__(session)
        self.home = home
        self.records: list[BackupRecord] = []

    def compose(self) -> ComposeResult:
        yield Header()
        with Vertical():
            yield Static(f"Backups in {self.home / 'backups'}", id="where", markup=False)
            yield DataTable(id="list", cursor_type="row", zebra_stripes=True)
        yield Footer()

    def on_mount(self) -> None:
        self.sub_title = "backups"
        table = self.query_one("#list", DataTable)
        table.add_columns("when (UTC)", "action", "kind", "store", "agents", "rows", "restored")
        table.focus()
        self.load()

    @work(thread=True, exclusive=True, group="backups", exit_on_error=False)
    def load(self) -> None:
        self.post_message(self.Listed(list_backups(self.home)))

    def on_backups_screen_listed(self, message: Listed) -> None:
        self.records = message.records
        table = self.query_one("#list", DataTable)
        row = table.cursor_row
        table.clear()
        places = _places([record.store for record in self.records], self.home)
        for record, place in zip(self.records, places, strict=True):
            nodes = sum(c for name, c in record.counts.items() if not name.isupper())
            edges = sum(record.counts.values()) - nodes
            counts = "whole store" if record.whole_store else rows_and_edges(nodes, edges)
            table.add_row(
                f"{record.created_at:%Y-%m-%d %H:%M:%S}",
                cell(record.action),
                cell(record.kind),
                cell(place),
                cell(", ".join(record.agents) or "—"),
                counts,
                f"yes {record.restored_at[:19]}" if record.restored_at else "no",
            )
        if self.records:
            table.move_cursor(row=min(row, len(self.records) - 1))
        where = self.query_one("#where", Static)
        where.update(f"{counted(len(self.records), 'backup')} in {self.home / 'backups'}")

    # -- commands ------------------------------------------------------------------------
    @write_action("Restoring a backup")
    def action_restore(self) -> None:
        record = self.row_at_cursor("#list", self.records, "There are no backups to restore")
        if record is None:
            return
        if record.restore_mode == "merge" and record.restored_at:
            # Its edges are gone and its values back: there is nothing left to ask about.
            self.notify(f"This merge was taken back already, at {record.restored_at[:19]}: "
                        "nothing to restore", severity="warning")  # fmt: skip
            return

        def answered(yes: bool | None) -> None:
            if yes:
                self.session.forget(record.store)
                self.restore(record.path)

        self.app.push_screen(ConfirmRestore(self.session, record), answered)

    @on(DataTable.RowSelected, "#list")
    def row_selected(self) -> None:
        self.action_restore()

    @work(thread=True, exclusive=True, group="restore", exit_on_error=False)
    def restore(self, backup: Path) -> None:
        self.post_message(self.Restored(restore_backup(backup)))

    def on_backups_screen_restored(self, message: Restored) -> None:
        result = message.result
        summary = restored_summary(result.restored, result.already_there, str(result.store),
                                   result.whole_store, result.edges)  # fmt: skip
        self.notify(summary, title="Restored")
        self.load()

    def action_close(self) -> None:
        self.dismiss(None)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        report_failed_worker(event, self.session)


def _places(stores: list[Path], home: Path) -> list[str]:
    """Each store as told apart: under the home by its place there (three parts, more
    where two would read the same), elsewhere by its whole path."""
    under = distinct_places(stores, home, shortest=3)
    return [place if store.is_relative_to(home) else str(store)
            for store, place in zip(stores, under, strict=True)]  # fmt: skip
