"""Writing mode: a store the app opened read-only, reopened read-write on request.

The app opens every store read-only. ``w`` (``f6`` in the console) asks first,
then reopens the store read-write in a worker; kuzu refuses while another
process (the agent itself, say) holds the file, and the engine's error says so,
with the store left read-only. ``w`` again goes back to read-only, unasked.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from rich.text import Text
from textual import work
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Button
from textual.worker import Worker, WorkerState

from .confirm_modal import ConfirmModal
from .error_modal import report_failed_worker
from .operator_actions import operator_home


class WritingModal(ConfirmModal):
    """Confirm, then reopen the store read-write (dismisses True, or False when the
    store stayed read-only because the open failed)."""

    HELP = (
        "Switch this store from read-only to writing. The agent's own process must not "
        "be writing to it meanwhile: if another process holds the store, the switch is "
        "refused and it stays read-only. **y** switches, **escape** cancels."
    )

    @dataclass
    class Switched(Message):
        store: Path

    def __init__(self, store: Path, engine: str, home: Path) -> None:
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
        self.store = store

    def confirmed(self) -> None:
        for button in self.query(Button):
            button.disabled = True
        self.switch()

    @work(thread=True, exclusive=True, group="writing", exit_on_error=False)
    def switch(self) -> None:
        self.app.browsers.set_writing(self.store, True)  # type: ignore[attr-defined]
        self.post_message(self.Switched(self.store))

    def on_writing_modal_switched(self, message: Switched) -> None:
        self.dismiss(True)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.worker.group == "writing" and event.state == WorkerState.ERROR:
            self.dismiss(False)  # the store was reopened read-only, as it was
            report_failed_worker(event)


@dataclass
class ReadOnlyAgain(Message):
    store: Path


class WritingToggle(Screen[None]):
    """``w``: switch the screen's store to writing (asking first) or back (unasked).

    Screens say which store (:meth:`writing_target`) and refresh what shows its
    mode after a switch (:meth:`writing_changed`)."""

    if TYPE_CHECKING:

        def writing_target(self) -> tuple[Path, str] | None:
            """The store (path and engine) the switch applies to; None: nothing to
            switch (the screen has said why)."""

    def writing_changed(self, store: Path) -> None:
        """The store was reopened (in either mode, or read-only after a refusal)."""

    def action_toggle_writing(self) -> None:
        target = self.writing_target()
        if target is None:
            return
        store, engine = target
        if self.app.browsers.writing(store):  # type: ignore[attr-defined]
            self.leave_writing(store)
            return
        home = operator_home(self.app.root, store)  # type: ignore[attr-defined]
        modal = WritingModal(store, engine, home)
        self.app.push_screen(modal, lambda done: self._switched(store, done))

    def _switched(self, store: Path, done: bool | None) -> None:
        if done is None:
            return  # cancelled: nothing was reopened
        self.app.store_watch.accept([store])  # type: ignore[attr-defined]
        self.writing_changed(store)
        if done:
            self.notify(f"{store.parent.name}/{store.name} is open for writing; w (f6 in the "
                        "console) switches it back to read-only",
                        title="Writing", severity="warning")  # fmt: skip

    @work(thread=True, exclusive=True, group="read-only", exit_on_error=False)
    def leave_writing(self, store: Path) -> None:
        self.app.browsers.set_writing(store, False)  # type: ignore[attr-defined]
        self.post_message(ReadOnlyAgain(store))

    def on_read_only_again(self, message: ReadOnlyAgain) -> None:
        self.app.store_watch.accept([message.store])  # type: ignore[attr-defined]
        self.writing_changed(message.store)
        store = message.store
        self.notify(f"{store.parent.name}/{store.name} is read-only again", title="Read-only")
