"""Import a JSON export into one agent: first a preview of what the file holds and what
will change (read-only), then, on confirm, the engine's import in a worker."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.message import Message
from textual.widgets import Button, DataTable, Input, Static
from textual.worker import Worker

from memexplorer.app.literal import cell
from memexplorer.app.operator_session import OperatorSession
from memexplorer.app.screens.import_commands import IMPORT_COMMANDS
from memexplorer.app.screens.modal_dialog import DIALOG_CSS
from memexplorer.app.screens.task_modal import TaskModal
from memexplorer.app.widgets.path_suggester import PathSuggester
from memexplorer.app.widgets.task_progress import TaskProgress
from memexplorer.app.widgets.worker_errors import report_failed_worker
from memexplorer.memory.rs_sqlite_schema import rs_store_name
from memexplorer.operator.import_preview import NODE_TABLES, ImportPreview, read_preview
from memexplorer.operator.rs_sqlite_transfer import is_rs_store
from memexplorer.operator.transfer import (
    ImportResult,
    hierarchical_store_path,
    import_agent_store,
)
from memexplorer.storage.exceptions import MemoryError
from memexplorer.storage.names import validate_agent_name
from memexplorer.storage.progress import TaskControl

_NO_FILE = "Type a JSON export's path; enter previews it. Nothing is written until you import."


def _agent_store(agent: str, home: Path | None, beside: Path, sqlite: bool) -> Path:
    """Another agent's store: ``<agent>.db`` beside an amplihack-rs SQLite store,
    else its graph store under the home."""
    if sqlite:
        return beside.with_name(rs_store_name(validate_agent_name(agent)))
    return hierarchical_store_path(agent, home=home, new=True)


class ImportModal(TaskModal[ImportResult | None]):
    """Name a file, see what it holds and what will change, then import."""

    HELP = (
        "Bring a JSON export (transfer format 1.1) into an agent: the one under the cursor, "
        "or type another name to import into that agent's own store under the home (made "
        "if it does not exist; the preview says so). Type the file's path "
        "and press enter (or **ctrl+o**) for a preview: rows per list in the file, and how "
        "many of its ids the store has already. **ctrl+t** switches between *replace* (the "
        "agent's memory becomes the file's) and *merge* (ids already there are skipped). "
        "The path completes as you type (**right** takes the suggestion). **ctrl+s** "
        "imports, with a bar of the rows written; **escape** closes without changing "
        "anything, or cancels a running import: the new store replaces the old one last, "
        "so a cancelled import changes nothing."
    )
    SCREEN_COMMANDS = IMPORT_COMMANDS
    #: Typing goes here at once (the screen would focus its first input instead).
    AUTO_FOCUS = "#source"
    CSS_PATH = [DIALOG_CSS, "import_modal.tcss"]

    @dataclass
    class Previewed(Message):
        preview: ImportPreview

    @dataclass
    class PreviewFailed(Message):
        text: str

    NOTE = "#change"

    def __init__(
        self,
        session: OperatorSession,
        agent: str,
        store: Path,
        source: str = "",
        *,
        home: Path | None = None,
    ):
        super().__init__(session)
        self.agent = agent
        self.store = store
        self.cursor_target = (agent, store)
        #: amplihack-rs's SQLite store: other agents' stores are <agent>.db beside it.
        self.sqlite = is_rs_store(store)
        self.home = home
        self.source = source
        self.merge = False
        self.preview: ImportPreview | None = None

    def compose(self) -> ComposeResult:
        # The dialog scrolls and its buttons keep to its foot: at 80x24 a preview is
        # taller than the screen, and the buttons fell below it.
        with VerticalScroll() as box:
            box.border_title = "Import"
            with Horizontal(id="agent-row"):
                yield Static("into agent ", id="agent-label")
                yield Input(self.agent, id="agent", disabled=self.home is None,
                            tooltip="another name imports into that agent's own store")  # fmt: skip
            yield Static(self._store_line(), id="store", markup=False)
            yield Input(self.source, placeholder="a JSON export file; enter previews it",
                        id="source", suggester=PathSuggester())  # fmt: skip
            # What the import will do comes first: on a short screen the counts scroll.
            yield Static("Nothing is written until you import.", id="change", markup=False)
            yield DataTable(id="counts", cursor_type="none", zebra_stripes=True)
            yield TaskProgress()
            with Horizontal(id="buttons"):
                yield Button("Import (ctrl+s)", variant="warning", id="confirm", disabled=True)
                yield Button("Cancel (esc)", id="cancel")

    def on_mount(self) -> None:
        self.query_one("#counts", DataTable).add_columns("in the file", "rows", "already there")
        self.query_one("#source", Input).focus()
        if self.source:
            self.action_preview()

    @on(Input.Submitted, "#source")
    def source_submitted(self) -> None:
        self.action_preview()

    def _store_line(self) -> str:
        new = "" if self.store.exists() else "  (a new store: created by the import)"
        return f"store {self.store}{new}"

    @on(Input.Changed, "#agent")
    def agent_changed(self, event: Input.Changed) -> None:
        """Another agent name: that agent's store under the home (made if missing)."""
        name = event.value.strip()
        if name == self.cursor_target[0]:
            self.agent, self.store = self.cursor_target
        else:
            try:
                store = _agent_store(name, self.home, self.cursor_target[1], self.sqlite)
            except MemoryError as error:
                self.agent = ""
                self._forget_preview(f"Nothing to import into: {error.message}")
                self.query_one("#store", Static).update(error.message)
                return
            self.agent, self.store = name, store
        self.query_one("#store", Static).update(self._store_line())
        # What is there already, and the summary, depend on the store: preview again.
        self._forget_preview(_NO_FILE)
        self.action_preview(quiet=True)

    @on(Input.Changed, "#source")
    def source_changed(self, event: Input.Changed) -> None:
        """A new path: the old preview no longer holds; an existing file is read now."""
        if self.running:
            return
        path = Path(event.value.strip()).expanduser()
        if event.value.strip() and path.is_file():
            self.action_preview(quiet=True)
        else:
            self._forget_preview(_NO_FILE)

    def _forget_preview(self, note: str) -> None:
        self.preview = None
        self.query_one("#confirm", Button).disabled = True
        self.query_one("#counts", DataTable).clear()
        self.query_one("#change", Static).update(note)

    def action_preview(self, quiet: bool = False) -> None:
        """Read the file and the store (enter, ctrl+o, or a changed field: ``quiet``,
        whose errors show in the summary line rather than in the error modal)."""
        text = self.query_one("#source", Input).value.strip()
        if not text or self.running or not self.agent:
            return
        self.preview = None
        self.query_one("#confirm", Button).disabled = True
        self.query_one("#change", Static).update("Reading the file…")
        browser = (self.session.browser(self.store)
                   if self.store.exists() else None)  # fmt: skip
        self.load_preview(Path(text).expanduser(), browser, quiet)

    @work(thread=True, exclusive=True, group="import-preview", exit_on_error=False)
    def load_preview(self, source: Path, browser, quiet: bool) -> None:  # type: ignore[no-untyped-def]
        try:
            preview = read_preview(source, browser, self.agent)
        except MemoryError as error:
            if not quiet:
                raise
            self.post_message(self.PreviewFailed(f"{error.title}: {error.message}"))
            return
        self.post_message(self.Previewed(preview))

    def on_import_modal_preview_failed(self, message: PreviewFailed) -> None:
        self._forget_preview(message.text)

    def on_import_modal_previewed(self, message: Previewed) -> None:
        self.preview = preview = message.preview
        table = self.query_one("#counts", DataTable)
        table.clear()
        for name, count in preview.counts.items():
            there = preview.existing.get(NODE_TABLES.get(name, ""), preview.edges_there.get(name))
            table.add_row(cell(name), f"{count:,}", "" if there is None else f"{there:,}")
        self.query_one("#confirm", Button).disabled = False
        self._describe_change()

    def _describe_change(self) -> None:
        preview = self.preview
        if preview is None:
            return
        semantic, episodic = (preview.store_counts[t] for t in NODE_TABLES.values())
        there = sum(preview.existing.values())
        incoming = sum(preview.counts.get(n, 0) for n in NODE_TABLES)
        if not self.store.exists():
            text = (f"NEW: {self.agent} gets the file's {incoming:,} nodes and their edges "
                    "in a new store.")  # fmt: skip
        elif self.merge:
            text = (f"MERGE: {incoming - there:,} new nodes are added; {there:,} ids already "
                    f"there are skipped. The agent keeps its {semantic:,} semantic and "
                    f"{episodic:,} episodic memories.")  # fmt: skip
        else:
            text = (f"REPLACE: the agent's {semantic:,} semantic and {episodic:,} episodic "
                    f"memories are replaced by the file's {incoming:,} nodes "
                    "(the previous store is kept aside).")  # fmt: skip
        self.query_one("#change", Static).update(text + "  ctrl+t switches replace/merge.")

    def action_toggle_merge(self) -> None:
        self.merge = not self.merge
        self._describe_change()

    def _lock_inputs(self, locked: bool) -> None:
        self.query_one("#source", Input).disabled = locked
        self.query_one("#agent", Input).disabled = locked or self.home is None
        self.query_one("#confirm", Button).disabled = locked

    def action_confirm(self) -> None:
        if self.preview is None or self.running:
            return
        control = self.start_task("Importing… (escape cancels)")
        self._lock_inputs(True)
        # kuzu keeps one database per file per process: the app's read-only copy goes.
        self.session.forget(self.store)
        self.run_import(self.preview.source, self.merge, control)

    @work(thread=True, exclusive=True, group="import", exit_on_error=False)
    def run_import(self, source: Path, merge: bool, control: TaskControl) -> None:
        # The replaced store's backup goes under the app's home, where Backups lists it.
        result = import_agent_store(
            self.agent, source, merge=merge, storage_path=self.store, control=control,
            home=self.home, engine="sqlite" if self.sqlite else None,
        )  # fmt: skip
        self.post_message(self.Done(result))

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        failed = report_failed_worker(event, self.session)
        if failed and event.worker.group == "import-preview":
            self._forget_preview("The file could not be previewed (see the error).")
        if failed and event.worker.group == "import":
            self.task_failed(event, "imported")
            self._lock_inputs(False)
            self._describe_change()


def import_summary(result: ImportResult) -> str:
    counts = ", ".join(f"{name} {count:,}" for name, count in result.counts.items() if count)
    skipped = f"; {result.skipped:,} skipped (already there)" if result.skipped else ""
    return f"{counts or 'nothing'} into {result.store}{skipped}"
