"""Offer the release that reads a store: the exact command, copied (c) or run here (y).

A store written by another kuzu or ladybug release than memexplorer's own is
read by that release from memexplorer's engine cache (``memexplorer engines
add``). When the app meets one whose release is missing, choosing the store
shows what it needs and the command. Installing writes nothing to any store;
under ``memexplorer serve`` the dialog only shows the command (the browser's
user is not the one who may install software on the server).
"""

from __future__ import annotations

from pathlib import Path

from textual import work
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static
from textual.worker import Worker, WorkerState

from memexplorer.app.screens.engine_offer_commands import ENGINE_OFFER_COMMANDS
from memexplorer.app.screens.modal_dialog import DIALOG_CSS, ModalDialog
from memexplorer.operator.catalog import StoreEntry
from memexplorer.operator.read_only_session import served
from memexplorer.storage.engine_cache import CachedEngine, add_engine
from memexplorer.storage.exceptions import MemoryError

__all__ = ["EngineOfferModal", "engine_offer"]


def engine_offer(entry: StoreEntry) -> tuple[str, str] | None:
    """What to tell about a store whose release is missing, and the command that adds
    it (None: nothing to offer). A refused store's error carries the command; a store
    read only at its last checkpoint, its summary."""
    command = getattr(entry.error, "add_command", "")
    if command and entry.error is not None:
        return entry.error.message.removesuffix(f": {entry.path}"), command
    summary = entry.summary
    if summary is not None and summary.add_command:
        story = summary.note or f"Written by {summary.written_by}; read by {summary.read_by}"
        return story, summary.add_command
    return None


class EngineOfferModal(ModalDialog[CachedEngine | None]):
    """What a store needs and the command that installs it; dismissed with the
    installed engine (None: closed without installing)."""

    HELP = (
        "This store was written by another engine release than memexplorer's own. "
        "**c** copies the command that installs that release, **y** runs it here "
        "(not in a served session), **escape** closes."
    )
    CSS_PATH = [DIALOG_CSS, "engine_offer_modal.tcss"]
    SCREEN_COMMANDS = ENGINE_OFFER_COMMANDS

    def __init__(self, store: Path, story: str, command: str) -> None:
        super().__init__()
        self.store = store
        self.story = story
        self.command = command
        self.requirement = command.rsplit(" ", 1)[-1]
        self.can_install = not served()
        self.installing = False

    def compose(self) -> ComposeResult:
        release = self.requirement.replace("==", " ")
        if self.can_install:
            keys = "c copies the command · y installs it now · escape closes"
        else:
            keys = (
                "c copies the command · this served session does not install engines: "
                "run it where memexplorer runs, then reload (ctrl+r) · escape closes"
            )
        with Vertical():
            yield Static(f"This store needs {release}", id="title", markup=False)
            yield Static(f"{self.story}\n{self.store}", id="story", markup=False)
            yield Static(self.command, id="command", markup=False)
            yield Static(keys, id="keys", markup=False)
            yield Static("", id="status", markup=False)

    def _status(self, text: str) -> None:
        self.query_one("#status", Static).update(text)

    def action_close(self) -> None:
        if not self.installing:
            self.dismiss(None)

    def action_copy(self) -> None:
        self.app.copy_to_clipboard(self.command)
        self.notify(f"Copied: {self.command}")

    def action_install(self) -> None:
        if not self.can_install:
            self.notify(
                "This served session does not install engines; run the command where "
                "memexplorer runs.",
                title="Not installed", severity="warning",
            )  # fmt: skip
            return
        if self.installing:
            return
        self.installing = True
        self._status(f"Installing {self.requirement} ...")
        self.install()

    @work(thread=True, exclusive=True, group="engine-install", exit_on_error=False)
    def install(self) -> CachedEngine | MemoryError:
        """Install off the UI thread; a failure is returned, to be shown here."""
        try:
            return add_engine(
                self.requirement,
                progress=lambda line: self.app.call_from_thread(self._status, line),
            )
        except MemoryError as exc:
            return exc

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.worker.group != "engine-install" or event.state != WorkerState.SUCCESS:
            return
        self.installing = False
        result = event.worker.result
        if isinstance(result, MemoryError):
            self._status(f"{result.title}: {result.describe()}")
            return
        self.dismiss(result)
