"""A merge's preview: every edge it adds and every value it changes, then (on y) the
backup and the write (:mod:`memexplorer.operator.merge`)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from textual import work
from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.message import Message
from textual.widgets import Button, DataTable, Static

from memexplorer.app.operator_session import OperatorSession
from memexplorer.app.screens.merge_commands import MERGE_COMMANDS
from memexplorer.app.screens.modal_dialog import DIALOG_CSS
from memexplorer.app.screens.preview_write_modal import PreviewWriteModal
from memexplorer.app.widgets.sized_rows import fill_sized
from memexplorer.operator.merge import MergeResult, merge_facts, preview_merge
from memexplorer.operator.merge_plan import MergePlan
from memexplorer.operator.wording import counted

WRITE_LABELS = ("write", "what", "values")


def _short(value: object, width: int = 60) -> str:
    text = " ".join(str(value).split()) if value != "" else "''"
    return text if len(text) <= width else text[: width - 1] + "…"


def _id(memory_id: str) -> str:
    """A long id cut to its first 8 characters (the full ids are on the screen behind)."""
    return memory_id if len(memory_id) <= 12 else memory_id[:8] + "…"


def plan_rows(plan: MergePlan) -> list[tuple[str, str, str]]:
    """One row per edge added and per value changed, as the preview lists them."""
    rows = []
    for edge in plan.edges:
        values = ", ".join(f"{name}={_short(value, 40)!s}" for name, value in edge.properties)
        rows.append(("+ edge", f"{edge.rel} {_id(edge.source)} → {_id(edge.target)}",
                     _short(values, 64)))  # fmt: skip
    for change in plan.changes:
        rows.append(("~ value", f"{_id(change.memory_id)} {change.column}",
                     f"{_short(change.before, 24)} → {_short(change.after, 37)}"))  # fmt: skip
    return rows


class MergeModal(PreviewWriteModal[MergeResult | None]):
    """Preview a merge, then (on confirm) back up the facts and write it."""

    HELP = (
        "What merging this group writes: each edge added (the kept fact SUPERSEDES each "
        "other one, as the store's own writer does) and each value changed. Nothing is "
        "written until you confirm with **y**; the facts are saved to a backup first and "
        "**u** on the duplicates screen (or Backups, **b**) takes the merge back. "
        "**escape** cancels."
    )
    SCREEN_COMMANDS = MERGE_COMMANDS
    CSS_PATH = [DIALOG_CSS, "merge_modal.tcss"]
    SUMMARY = "#merge-summary"
    WRITE_FAILED = "Nothing was merged (see the error)."

    @dataclass
    class Planned(Message):
        plan: MergePlan

    def __init__(
        self,
        session: OperatorSession,
        store: Path,
        agent: str,
        keep: str,
        others: list[str],
        home: Path,
    ) -> None:
        super().__init__(session, store)
        self.agent, self.home = agent, home
        self.keep, self.others = keep, others
        self.plan: MergePlan | None = None

    def compose(self) -> ComposeResult:
        # The dialog scrolls and its buttons keep to its foot: at 80x24 a large group's
        # rows pushed Merge and Cancel below the screen.
        with VerticalScroll() as box:
            box.border_title = "Merge duplicates"
            yield Static("Planning the merge…", id="merge-summary", markup=False)
            yield DataTable(id="writes", cursor_type="row", zebra_stripes=True)
            with Horizontal(id="buttons"):
                yield Button("Merge (y)", variant="warning", id="confirm", disabled=True)
                yield Button("Cancel (esc)", id="cancel")

    def on_mount(self) -> None:
        self.query_one("#writes", DataTable).add_columns(*WRITE_LABELS)
        self.query_one("#writes", DataTable).focus(scroll_visible=False)
        self.load_plan()

    @work(thread=True, exclusive=True, group="merge-preview", exit_on_error=False)
    def load_plan(self) -> None:
        self.post_message(self.Planned(preview_merge(self.store, self.agent, self.keep,
                                                     self.others)))  # fmt: skip

    def on_merge_modal_planned(self, message: Planned) -> None:
        plan = self.plan = message.plan
        fill_sized(self.query_one("#writes", DataTable), WRITE_LABELS, plan_rows(plan))
        self.say(
            f"Keep {plan.keep.memory_id} and supersede {counted(len(plan.others), 'fact')} "
            f"as {plan.writer} does: {counted(len(plan.edges), 'edge')} added, "
            f"{counted(len(plan.changes), 'value')} changed, nothing deleted; the facts are "
            "backed up first."
        )
        self.query_one("#confirm", Button).disabled = False

    def action_confirm(self) -> None:
        if self.plan is None or self.running:
            return
        self.query_one("#confirm", Button).disabled = True
        plan, home = self.plan, self.home
        self.run_write("Backing up, then merging…", lambda: merge_facts(plan, home=home),
                       self.dismiss)  # fmt: skip
