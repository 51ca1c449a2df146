"""Export one agent's memory to a file: transfer-format JSON 1.1, or a raw copy of the
store. The file is written whole or not at all; the store is only read."""

from __future__ import annotations

from datetime import date
from pathlib import Path

from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Input, RadioSet, Static
from textual.worker import Worker

from memexplorer.app.literal import literal
from memexplorer.app.operator_session import OperatorSession
from memexplorer.app.screens.export_commands import EXPORT_COMMANDS
from memexplorer.app.screens.modal_dialog import DIALOG_CSS
from memexplorer.app.screens.task_modal import TaskModal
from memexplorer.app.widgets.marked_radio import MarkedRadioButton
from memexplorer.app.widgets.path_suggester import PathSuggester
from memexplorer.app.widgets.task_progress import TaskProgress
from memexplorer.app.widgets.worker_errors import report_failed_worker
from memexplorer.operator.transfer import ExportResult, export_agent_store
from memexplorer.storage.progress import TaskControl

_SUFFIX = {"json": ".json", "raw-db": ".db"}
_NOTHING_YET = "Nothing is written until you export."


def default_output(agent: str, fmt: str = "json", today: date | None = None) -> str:
    """``~/memexplorer-exports/<agent>-<date>.json`` (``.db`` for a raw copy)."""
    day = (today or date.today()).isoformat()
    return f"~/memexplorer-exports/{agent}-{day}{_SUFFIX[fmt]}"


class ExportModal(TaskModal[ExportResult | None]):
    """Choose the format and the file, then export in a worker."""

    HELP = (
        "Write the agent's memory to a file: **json** is the transfer format 1.1 (every "
        "node and edge, readable by `memexplorer import` and the reference library), "
        "**raw-db** a copy of the whole store file. The path completes as you type (**right** "
        "takes the suggestion). **ctrl+s** (or the Export button, or enter in the path) "
        "starts; the bar shows each table read and the file written. A file that exists "
        "is replaced only at a second **ctrl+s** on the same path. **escape** closes "
        "without writing, or cancels a running export: the file is written whole or not at all."
    )
    SCREEN_COMMANDS = EXPORT_COMMANDS
    #: Typing goes here at once (the screen would focus its first input instead).
    AUTO_FOCUS = "#output"
    CSS_PATH = [DIALOG_CSS, "export_modal.tcss"]

    def __init__(
        self, session: OperatorSession, agent: str, store: Path, *, today: date | None = None
    ) -> None:
        super().__init__(session)
        self.agent = agent
        self.store = store
        self.today = today
        self.format = "json"
        #: The existing file the operator chose to replace (a second ctrl+s on it).
        self.replacing: str | None = None

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = literal(f"Export {self.agent}")
            yield Static(f"From {self.store}", markup=False)
            with RadioSet(id="format"):
                yield MarkedRadioButton("json (transfer format 1.1)", value=True, id="json")
                yield MarkedRadioButton("raw-db (a copy of the store file)", id="raw-db")
            yield Input(
                default_output(self.agent, today=self.today), id="output",
                suggester=PathSuggester(),
            )  # fmt: skip
            yield Static(_NOTHING_YET, id="note", markup=False)
            yield TaskProgress()
            with Horizontal(id="buttons"):
                yield Button("Export (ctrl+s)", variant="primary", id="start")
                yield Button("Cancel (esc)", id="cancel")

    def on_mount(self) -> None:
        self.query_one("#output", Input).focus()

    @on(RadioSet.Changed, "#format")
    def format_changed(self, event: RadioSet.Changed) -> None:
        old = self.format
        self.format = str(event.pressed.id)
        box = self.query_one("#output", Input)
        if box.value == default_output(self.agent, old, self.today):
            box.value = default_output(self.agent, self.format, self.today)

    @on(Input.Changed, "#output")
    def output_changed(self) -> None:
        if self.replacing is not None and not self.running:
            self.replacing = None  # another path: a new question
            self.query_one("#note", Static).update(_NOTHING_YET)

    @on(Input.Submitted, "#output")
    @on(Button.Pressed, "#start")
    def start_pressed(self) -> None:
        self.action_start()

    def action_start(self) -> None:
        output = self.query_one("#output", Input).value.strip()
        if self.running or not output:
            return
        target = Path(output).expanduser()
        exists = (target.exists() or target.is_symlink()) and not target.is_dir()
        if exists and self.replacing != output:
            self.replacing = output
            self.query_one("#note", Static).update(
                f"{target} already exists ({target.lstat().st_size:,} bytes): ctrl+s "
                "again replaces it, or name another file."
            )
            return
        control = self.start_task(f"Exporting to {output}… (escape cancels)")
        for widget in (*self.query(RadioSet), *self.query(Input), self.query_one("#start")):
            widget.disabled = True
        # kuzu keeps one database per file per process: the app's read-only copy goes.
        self.session.forget(self.store)
        self.export(target, self.format, control, overwrite=self.replacing == output)

    @work(thread=True, exclusive=True, group="export", exit_on_error=False)
    def export(self, output: Path, fmt: str, control: TaskControl, *, overwrite: bool) -> None:
        # Without the operator's yes, a file that appeared meanwhile is refused, not lost.
        result = export_agent_store(self.agent, output, format=fmt, storage_path=self.store,
                                    control=control, overwrite=overwrite)  # fmt: skip
        self.post_message(self.Done(result))

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if report_failed_worker(event, self.session):
            self.task_failed(event, "written")
            for widget in (*self.query(RadioSet), *self.query(Input), self.query_one("#start")):
                widget.disabled = False
            self.query_one("#note", Static).update(_NOTHING_YET)


def export_summary(result: ExportResult) -> str:
    """The notification after an export: rows per table and where they went."""
    counts = ", ".join(f"{name} {count:,}" for name, count in result.counts.items() if count)
    return f"{counts or 'a copy of the store'} → {result.output} ({result.size_bytes:,} bytes)"
