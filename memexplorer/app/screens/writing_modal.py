"""Writing mode: a store the app opened read-only, reopened read-write on request.

The app opens every store read-only. ``w`` (``f6`` in the console) asks first,
then reopens the store read-write in a worker; kuzu refuses while another
process (the agent itself, say) holds the file, and the engine's error says so,
with the store left read-only. Writing mode holds the store's write gate (see
:mod:`memexplorer.operator.browsers`); an app started with MEMEXPLORER_READ_ONLY=1
(``memexplorer serve``) refuses the switch before asking. ``w`` again goes back
to read-only, unasked.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from rich.text import Text
from textual import work
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import Button, Static
from textual.worker import Worker, WorkerState

from memexplorer.app.operator_session import OperatorSession
from memexplorer.app.screens.confirm_modal import ConfirmModal
from memexplorer.app.screens.operator_screen import OperatorScreen
from memexplorer.app.session_mode import write_action
from memexplorer.app.widgets.worker_errors import report_failed_worker
from memexplorer.operator.store_backup import write_closed_store_backup
from memexplorer.operator.write_gate import write_gate
from memexplorer.storage.exceptions import StoreUpgradeRequired


class WritingModal(ConfirmModal):
    """Confirm, then reopen the store read-write (dismisses True, or False when the
    store stayed read-only because the open failed)."""

    HELP = (
        "Switch this store from read-only to writing. The agent's own process must not "
        "be writing to it meanwhile: if another process holds the store, the switch is "
        "refused and it stays read-only. An older LadybugDB store would be rewritten in "
        "the installed storage version: you are asked again, and a copy of the file is "
        "saved before the upgrade. **y** switches, **escape** cancels."
    )

    @dataclass
    class Switched(Message):
        store: Path

    @dataclass
    class UpgradeAsked(Message):
        error: StoreUpgradeRequired

    def __init__(self, session: OperatorSession, store: Path, engine: str, home: Path) -> None:
        lines = [
            Text.assemble(("Store  ", "bold"), str(store), (f"  ({engine})", "dim")),
            Text.assemble(
                ("The agent's own process must not be writing to this store. ", "bold"),
                "Stop the agent first: while another process holds the store the switch is "
                "refused and it stays read-only. While you write, the agent cannot open it.",
            ),
            Text(
                "Destructive changes keep backups: clean saves the rows it deletes, a console "
                f"write saves a copy of the whole store first, both under {home / 'backups'}, "
                "and either can be undone or restored from the Backups screen (b)."
            ),
            Text("w again switches back to read-only.", style="dim"),
        ]
        super().__init__(f"Switch {store.name} to writing?", lines, "Switch to writing")
        self.session = session
        self.store = store
        self.engine = engine
        self.home = home
        #: Set when writing would rewrite an older LadybugDB store and the operator
        #: has been asked about that (the next y backs the file up, then upgrades).
        self.upgrade: StoreUpgradeRequired | None = None

    def confirmed(self) -> None:
        for button in self.query(Button):
            button.disabled = True
        self.switch(self.upgrade is not None)

    @work(thread=True, exclusive=True, group="writing", exit_on_error=False)
    def switch(self, upgrade: bool) -> None:
        # The gate from before the copy of the file to writing mode, which then holds it.
        with write_gate(self.store, action="writing mode (app)", allow_upgrade=upgrade):
            if upgrade:
                write_closed_store_backup(self.home, self.store, engine=self.engine,
                                          kind="store", action="upgrade")  # fmt: skip
            try:
                self.session.set_writing(self.store, True, allow_upgrade=upgrade)
            except StoreUpgradeRequired as error:
                if upgrade:
                    raise
                self.post_message(self.UpgradeAsked(error))  # still read-only, unchanged
                return
        self.post_message(self.Switched(self.store))

    def on_writing_modal_upgrade_asked(self, message: UpgradeAsked) -> None:
        """Writing would upgrade the file: say so, and what guards it, then ask again."""
        error = self.upgrade = message.error
        self.query_one("#question", Static).update(
            f"Upgrade {self.store.name} from storage version {error.found} to "
            f"{error.installed} to write to it?"
        )
        for detail in self.query(".detail"):
            detail.remove()
        details = [
            Text(f"{error.message}.", style="bold"),
            Text(
                "If the agent that wrote this store still runs that release, it will not be "
                "able to open the store afterwards. Reading never needs the upgrade: escape "
                "keeps the store read-only and unchanged."
            ),
            Text(
                f"A copy of the file as it is now is saved first under {self.home / 'backups'}; "
                "restoring it from the Backups screen (b) puts the old version back."
            ),
        ]
        buttons = self.query_one("#buttons")
        for detail in details:
            self.query_one(Vertical).mount(Static(detail, classes="detail"), before=buttons)
        confirm = self.query_one("#confirm", Button)
        confirm.label = "Back up, upgrade and write (y)"
        for button in self.query(Button):
            button.disabled = False
        self.query_one("#cancel", Button).focus()

    def on_writing_modal_switched(self, message: Switched) -> None:
        self.dismiss(True)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.worker.group == "writing" and event.state == WorkerState.ERROR:
            self.dismiss(False)  # the store was reopened read-only, as it was
            report_failed_worker(event, self.session)


@dataclass
class ReadOnlyAgain(Message):
    store: Path


class WritingToggle(OperatorScreen[None]):
    """``w``: switch the screen's store to writing (asking first) or back (unasked).

    Screens say which store (:meth:`writing_target`) and refresh what shows its
    mode after a switch (:meth:`writing_changed`)."""

    if TYPE_CHECKING:

        def writing_target(self) -> tuple[Path, str] | None:
            """The store (path and engine) the switch applies to; None: nothing to
            switch (the screen has said why)."""

    def writing_changed(self, store: Path) -> None:
        """The store was reopened (in either mode, or read-only after a refusal)."""

    @write_action("Switching a store to writing")
    def action_toggle_writing(self) -> None:
        target = self.writing_target()
        if target is None:
            return
        store, engine = target
        if self.session.writing(store):
            self.leave_writing(store)
            return
        home = self.session.home(store)
        modal = WritingModal(self.session, store, engine, home)
        self.app.push_screen(modal, lambda done: self._switched(store, done))

    def _switched(self, store: Path, done: bool | None) -> None:
        if done is None:
            return  # cancelled: nothing was reopened
        self.session.wrote([store])
        self.writing_changed(store)
        if done:
            self.notify(f"{store.parent.name}/{store.name} is open for writing; w (f6 in the "
                        "console) switches it back to read-only",
                        title="Writing", severity="warning")  # fmt: skip

    @work(thread=True, exclusive=True, group="read-only", exit_on_error=False)
    def leave_writing(self, store: Path) -> None:
        self.session.set_writing(store, False)
        self.post_message(ReadOnlyAgain(store))

    def on_read_only_again(self, message: ReadOnlyAgain) -> None:
        self.session.wrote([message.store])
        self.writing_changed(message.store)
        store = message.store
        self.notify(f"{store.parent.name}/{store.name} is read-only again", title="Read-only")
