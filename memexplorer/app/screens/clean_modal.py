"""Clean with a preview: what will go (rows per table, edges, the first rows), then
confirm; the engine writes a backup before it deletes, so the result can be undone."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.widgets import Button, DataTable, Input, Static

from memexplorer.app.operator_session import OperatorSession
from memexplorer.app.screens.clean_commands import CLEAN_COMMANDS
from memexplorer.app.screens.modal_dialog import DIALOG_CSS
from memexplorer.app.screens.preview_write_modal import PreviewWriteModal
from memexplorer.app.widgets.sized_rows import fill_sized
from memexplorer.operator.clean import (
    CleanPreview,
    CleanResult,
    CleanTarget,
    clean_store,
    preview_clean,
)
from memexplorer.operator.clean_selection import Selection
from memexplorer.operator.wording import counted

#: The preview lists this many rows; the counts are always complete.
SAMPLE_ROWS = 12
COUNT_LABELS = ("table", "what", "count")
SAMPLE_LABELS = ("table", "id", "label")


class CleanModal(PreviewWriteModal[CleanResult | None]):
    """Preview a clean, then (on confirm) back up and delete exactly that."""

    HELP = (
        "What a clean would remove: rows per table, the edges that go with them and the "
        "first rows. Nothing is changed until you confirm with **y** (or the Delete "
        "button); the deleted rows are saved to a backup first, and **u** on the stores "
        "screen (or the Backups screen, **b**) brings them back. **escape** cancels. For a "
        "flat store, type a session-id glob (`*` and `?`) and press enter to preview it."
    )
    SCREEN_COMMANDS = CLEAN_COMMANDS
    CSS_PATH = [DIALOG_CSS, "clean_modal.tcss"]
    WRITE_FAILED = "Nothing was deleted (see the error)."

    @dataclass
    class Previewed(Message):
        preview: CleanPreview

    def __init__(
        self, session: OperatorSession, target: CleanTarget, selection: Selection, home: Path,
        what: str, *, sessions: bool = False,
    ) -> None:  # fmt: skip
        super().__init__(session, target.path)
        self.target = target
        self.selection = selection
        self.home = home
        self.what = what
        self.sessions = sessions
        self.preview: CleanPreview | None = None
        self.pattern_submitted = False

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = "Clean"
            yield Static(self.what, id="what", markup=False)
            yield Input(self.selection.pattern, placeholder="session ids: glob with * and ?",
                        id="pattern", disabled=not self.sessions)  # fmt: skip
            # What it lists scrolls, so the buttons stay on screen at any size.
            with VerticalScroll(id="body"):
                yield Static("Looking for what matches…", id="summary", markup=False)
                yield DataTable(id="counts", cursor_type="none", zebra_stripes=True)
                yield DataTable(id="sample", cursor_type="row")
            with Horizontal(id="buttons"):
                yield Button("Delete (y)", variant="error", id="confirm", disabled=True)
                yield Button("Cancel (esc)", id="cancel")

    def on_mount(self) -> None:
        self.set_class(self.sessions, "sessions")
        self.query_one("#counts", DataTable).add_columns(*COUNT_LABELS)
        self.query_one("#sample", DataTable).add_columns(*SAMPLE_LABELS)
        if self.sessions:
            self.query_one("#pattern", Input).focus()
        else:
            self.query_one("#sample", DataTable).focus(scroll_visible=False)
        self.run_preview()

    def run_preview(self) -> None:
        self.preview = None
        self.query_one("#confirm", Button).disabled = True
        self.say("Looking for what matches…")
        self.load_preview(self.target, self.selection)

    @work(thread=True, exclusive=True, group="clean-preview", exit_on_error=False)
    def load_preview(self, target: CleanTarget, selection: Selection) -> None:
        self.post_message(self.Previewed(preview_clean(target, selection)))

    @on(Input.Submitted, "#pattern")
    def new_pattern(self, event: Input.Submitted) -> None:
        self.pattern_submitted = True
        try:
            self.selection = Selection(pattern=event.value.strip())
        except Exception as error:  # a bad glob: the one error path says why
            self.session.show_error(error)
            return
        self.run_preview()

    def on_clean_modal_previewed(self, message: Previewed) -> None:
        if message.preview.selection != self.selection:
            return  # the preview of a pattern since replaced
        preview = self.preview = message.preview
        sample = self.query_one("#sample", DataTable)
        counted_rows = [(name, "rows", f"{count:,}") for name, count in preview.counts.items()]
        counted_rows += [(name, "edges", f"{count:,}") for name, count in preview.edges.items()]
        fill_sized(self.query_one("#counts", DataTable), COUNT_LABELS, counted_rows)
        fill_sized(sample, SAMPLE_LABELS, [
            (str(row["table"]), str(row["id"]), " ".join(str(row.get("label", "")).split())[:60])
            for row in preview.sample[:SAMPLE_ROWS]
        ])  # fmt: skip
        self.say(self.summary(preview))
        self.query_one("#confirm", Button).disabled = not preview.rows
        if self.pattern_submitted and self.query_one("#pattern", Input).has_focus:
            # The operator chose this glob: y now confirms rather than typing into it.
            # The first preview (of the glob the modal opened with) leaves the box to type in.
            sample.focus()

    @staticmethod
    def summary(preview: CleanPreview) -> str:
        if not preview.rows:
            return f"Nothing matches in {preview.store} ({preview.kind}): nothing to delete."
        shown = min(len(preview.sample), SAMPLE_ROWS)
        return (
            f"Will delete {counted(preview.rows, 'row')} and "
            f"{counted(preview.edge_count, 'edge')} from {preview.store} "
            f"({preview.kind}, {preview.engine}); a backup is written first. "
            f"First {shown} of {counted(preview.rows, 'row')}:"
        )

    # -- confirm ------------------------------------------------------------------------
    def action_confirm(self) -> None:
        if self.preview is None or not self.preview.rows or self.running:
            return
        self.query_one("#confirm", Button).disabled = True
        self.query_one(Vertical).loading = True
        target, selection, home = self.target, self.selection, self.home
        self.run_write("Backing up, then deleting…",
                       lambda: clean_store(target, selection, home=home), self.dismiss)  # fmt: skip

    def write_failed(self) -> None:
        super().write_failed()
        self.query_one(Vertical).loading = False
