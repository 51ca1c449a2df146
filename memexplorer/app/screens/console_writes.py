"""The console's writes: refused while the store is read-only; in writing mode,
confirmed statement by statement, run after a copy of the whole store is saved,
and undone (``f8``) by putting that copy back.

A mixin for :class:`ConsoleScreen`, so that screen stays about running queries.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from rich.text import Text
from textual import work
from textual.message import Message

from memexplorer.app.screens.confirm_modal import ConfirmModal
from memexplorer.app.screens.undo_offer import UndoOffer
from memexplorer.app.screens.writing_modal import WritingToggle
from memexplorer.app.session_mode import refuse_in_read_only_session, write_action
from memexplorer.operator.backup_records import BackupRecord, RestoreResult
from memexplorer.operator.backups import restore_backup
from memexplorer.operator.console import ConsoleResult, run_console_query
from memexplorer.operator.read_only_session import read_only_label
from memexplorer.operator.store_backup import write_store_backup
from memexplorer.operator.write_gate import write_gate
from memexplorer.storage.exceptions import MemoryError, ReadOnlyStoreError


class ConsoleReadOnlyError(ReadOnlyStoreError):
    title = "Store is read-only"
    hint = (
        "This statement may change the store, and the store is open read-only. Press w on "
        "the stores screen (or f6 here) to switch it to writing mode, then run it again: "
        "you will be asked to confirm it, and a copy of the store is saved first."
    )


def write_modal(store: Path, engine: str, text: str, home: Path) -> ConfirmModal:
    """The confirm for one write statement: the text as it will run, its parameters
    (the console sends none) and the backup taken first."""
    details = [
        Text.assemble(("Store  ", "bold"), str(store)),
        Text.assemble(("Statement  ", "bold"), (text, "reverse")),
        Text.assemble(("Parameters  ", "bold"), "none: the statement runs as written"),
        Text(
            f"A copy of the whole store is saved under {home / 'backups'} before the statement "
            "runs; f8 in the console (while the notification shows) or the Backups screen (b) "
            "puts it back."
        ),
    ]
    return ConfirmModal("Run this write?", details, "Back up and run")


@dataclass
class Wrote(Message):
    result: ConsoleResult
    backup: BackupRecord


@dataclass
class WriteFailed(Message):
    """The statement failed after its backup was saved: part of it may have run."""

    error: MemoryError
    backup: BackupRecord


@dataclass
class WriteUndone(Message):
    result: RestoreResult


class ConsoleWrites(UndoOffer[BackupRecord], WritingToggle):
    """Write statements of the console: refuse, confirm, back up, run, undo."""

    store: Path
    engine: str
    kind: str
    #: Whether this console reopened or changed its store (the stores screen reloads it).
    touched: bool = False

    if TYPE_CHECKING:  # the console's own, used here

        def show_result(self, result: ConsoleResult) -> None: ...
        def starting(self, status: str) -> None: ...
        def finished(self, status: str | Text) -> None: ...

    def ask_to_write(self, text: str) -> None:
        """A statement that may write: refused read-only, else confirmed first."""
        if refuse_in_read_only_session(self, "Writing from the console"):
            self.finished(f"refused: this session is {read_only_label()}")
            return
        if not self.session.writing(self.store):
            self.finished("refused: the store is read-only (w on the stores screen, or f6)")
            self.session.show_error(
                ConsoleReadOnlyError(self.store, "This store is open read-only")
            )
            return
        home = self.session.home(self.store)
        modal = write_modal(self.store, self.engine, text, home)
        self.app.push_screen(modal, lambda ok: self._confirmed(ok, text, home))

    def _confirmed(self, ok: bool | None, text: str, home: Path) -> None:
        if ok:
            self.starting("backing up the store, then writing…")
            self.write(text, home)
        else:
            self.finished("cancelled: nothing was written")

    @work(thread=True, exclusive=True, group="console", exit_on_error=False)
    def write(self, text: str, home: Path) -> None:
        browser = self.session.browser(self.store)
        # The backup and the statement under one hold of the gate (writing mode holds it).
        with write_gate(self.store, action="console write"):
            backup = write_store_backup(home, browser, action="console-write", kind=self.kind,
                                        selection={"statement": text})  # fmt: skip
            try:
                result = run_console_query(browser, text, allow_write=True)
            except MemoryError as error:
                self.post_message(WriteFailed(error, backup))
                return
        self.post_message(Wrote(result, backup))

    def on_wrote(self, message: Wrote) -> None:
        self.touched = True
        self.session.wrote([self.store])
        self.show_result(message.result)
        self.offer_undo(message.backup, f"Wrote to {self.store.name}. Press f8 to undo "
                        f"(backup {message.backup.path.name}).", "Written")  # fmt: skip

    def on_write_failed(self, message: WriteFailed) -> None:
        """The error, and the undo of whatever part ran: statements before the one that
        failed are committed, and the store's files moved under our own hold."""
        self.touched = True
        self.session.wrote([self.store])
        self.finished(Text("failed", style="yellow"))
        self.session.show_error(message.error)
        self.offer_undo(message.backup, f"The write failed; a copy of {self.store.name} was "
                        f"saved before it ran. Press f8 to put it back, if part of it ran "
                        f"(backup {message.backup.path.name}).", "Write failed")  # fmt: skip

    # -- undo ----------------------------------------------------------------------------
    @write_action("Undo")
    def action_undo_write(self) -> None:
        record = self.take_undo("writes from Backups (b)")
        if record is not None:
            self.starting("putting the store back…")
            self.undo(record)

    @work(thread=True, exclusive=True, group="console", exit_on_error=False)
    def undo(self, record: BackupRecord) -> None:
        self.session.forget(self.store)
        self.post_message(WriteUndone(restore_backup(record.path)))

    def on_write_undone(self, message: WriteUndone) -> None:
        self.touched = True
        self.session.wrote([self.store])
        self.finished(f"undone: the store is as before the write ({message.result.backup.name})")
        self.notify(f"Put {self.store.name} back as it was before the write", title="Undone")
