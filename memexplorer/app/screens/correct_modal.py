"""Correct a fact: edit its content (concept, confidence), preview every write, confirm.

The preview is the engine's plan (:mod:`memexplorer.operator.correct_read`): the
new node with each property as it will be stored, every edge, every changed
property of older facts, and a note when the writer's rules do not supersede
the old fact. Confirming writes exactly that plan through the write gate after
a backup; the undo removes what was added while the modal is open.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.widgets import Input, Label, Static

from memexplorer.app.operator_session import OperatorSession
from memexplorer.app.screens.correct_commands import CORRECT_COMMANDS
from memexplorer.app.screens.modal_dialog import DIALOG_CSS
from memexplorer.app.screens.preview_write_modal import PreviewWriteModal
from memexplorer.operator.correct_plan import WRITER_NAMES, CorrectionPlan, CorrectionRequest
from memexplorer.operator.correct_read import correction_request, fact_to_correct, plan_correction
from memexplorer.operator.correct_undo import UndoResult, undo_correction
from memexplorer.operator.correct_write import CorrectionResult, correct_fact
from memexplorer.operator.wording import counted


def plan_text(plan: CorrectionPlan) -> Text:
    """The plan as the modal shows it: writer, new node, edges, changes, note."""
    text = Text()
    text.append(f"{WRITER_NAMES[plan.writer]}\n", style="bold")
    text.append(f"new SemanticMemory {plan.node_id}\n", style="bold cyan")
    for name, value in plan.node.items():
        text.append(f"  {name}: ", style="dim")
        text.append(f"{value!r}\n")
    text.append(f"edges to write ({len(plan.edges)})\n", style="bold cyan")
    for edge in plan.edges:
        target = "the old fact" if edge.target == plan.old.memory_id else edge.target
        props = ", ".join(f"{k}={v!r}" for k, v in edge.properties.items())
        text.append(f"  → {edge.rel} ", style="bold")
        text.append(f"{target}  ")
        text.append(f"{props}\n", style="dim")
    text.append(f"properties to change ({len(plan.changes)})\n", style="bold cyan")
    for change in plan.changes:
        text.append(f"  {change.memory_id}.{change.property}: {change.before!r} → "
                    f"{change.after!r}\n")  # fmt: skip
    if plan.note:
        text.append(f"⚠ {plan.note}", style="bold yellow")
    return text


@dataclass
class CorrectOutcome:
    """What the modal did: the correction written (and perhaps undone since)."""

    result: CorrectionResult | None
    undone: UndoResult | None = None


#: The fields of the form, in the order a preview records them.
_FIELDS = ("content", "concept", "confidence")


class CorrectModal(PreviewWriteModal[CorrectOutcome | None]):
    """Edit a fact's value, preview the writer's writes, then write them (or not)."""

    HELP = (
        "Store the right value of a fact the way the agent's own code would: the new fact "
        "supersedes the old one where that writer's rules say so. Edit the content (and "
        "the concept or confidence), press **enter** or **ctrl+o** to preview every row, "
        "edge and changed property, then **ctrl+s** to write them (after a backup of the "
        "whole store). **ctrl+z** removes what was written while this stays open; "
        "**escape** closes."
    )
    SCREEN_COMMANDS = CORRECT_COMMANDS
    CSS_PATH = [DIALOG_CSS, "correct_modal.tcss"]
    WRITE_FAILED = READ_FAILED = "Nothing was changed by the step that failed (see the error)."

    @dataclass
    class Loaded(Message):
        content: str
        concept: str
        confidence: float

    @dataclass
    class Planned(Message):
        request: CorrectionRequest
        plan: CorrectionPlan
        #: The fields as they were when the preview was asked for.
        fields: tuple[str, ...]

    def __init__(
        self, session: OperatorSession, store: Path, agent: str, memory_id: str, home: Path
    ) -> None:
        super().__init__(session, store)
        self.agent, self.memory_id, self.home = agent, memory_id, home
        self.planned: tuple[CorrectionRequest, CorrectionPlan] | None = None
        self.outcome = CorrectOutcome(None)
        #: The fields the preview in ``planned`` was worked out from.
        self.planned_fields: tuple[str, ...] = ()

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = "Correct a fact"
            yield Static(f"{self.memory_id} of {self.agent}", id="what", markup=False)
            with Horizontal(classes="field"):
                yield Label("content")
                yield Input(id="content", disabled=True)
            with Horizontal(classes="field"):
                yield Label("concept")
                yield Input(id="concept", disabled=True)
                yield Label(" confidence")
                yield Input(id="confidence", disabled=True)
            yield Static("Reading the fact…", id="summary", markup=False)
            with VerticalScroll(id="plan-box"):
                yield Static(id="plan")

    def on_mount(self) -> None:
        self.load_fact()

    @work(thread=True, exclusive=True, group="correct-load", exit_on_error=False)
    def load_fact(self) -> None:
        old = fact_to_correct(self.store, self.agent, self.memory_id)
        self.post_message(self.Loaded(old.content, old.concept, old.confidence))

    def on_correct_modal_loaded(self, message: Loaded) -> None:
        for name, value in (("content", message.content), ("concept", message.concept),
                            ("confidence", f"{message.confidence:g}")):  # fmt: skip
            field = self.query_one(f"#{name}", Input)
            field.value, field.disabled = value, False
        self.query_one("#content", Input).focus()
        self.say("Edit the content, then enter (or ctrl+o) to preview what will be written.")

    # -- preview ----------------------------------------------------------------------------
    def _fields(self) -> tuple[str, ...]:
        return tuple(self.query_one(f"#{n}", Input).value for n in _FIELDS)

    @on(Input.Changed)
    def edited(self) -> None:
        if (self.planned is not None and self.outcome.result is None
                and self._fields() != self.planned_fields):  # fmt: skip
            self.planned = None
            self.say("Changed since the preview: enter (or ctrl+o) to preview again.")

    @on(Input.Submitted)
    def submitted(self) -> None:
        self.action_preview()

    def action_preview(self) -> None:
        if self.running or self.outcome.result is not None:
            return
        fields = self._fields()
        values = dict(zip(_FIELDS, fields, strict=True))
        try:
            confidence = float(values["confidence"])
        except ValueError:
            confidence = -1.0
        if not 0.0 <= confidence <= 1.0:  # nan and inf too
            self.say(f"The confidence must be a number in [0, 1], not {values['confidence']!r}.")
            return
        if not values["content"].strip():
            self.say("The corrected content is empty: type the fact's right value.")
            return
        self.say("Working out what the writer would write…")
        self.make_plan(values["content"], values["concept"], confidence, fields)

    @work(thread=True, exclusive=True, group="correct-plan", exit_on_error=False)
    def make_plan(
        self, content: str, concept: str, confidence: float, fields: tuple[str, ...]
    ) -> None:
        wish = correction_request(self.agent, self.memory_id, content, concept, confidence)
        self.post_message(self.Planned(wish, plan_correction(self.store, wish), fields))

    def on_correct_modal_planned(self, message: Planned) -> None:
        if message.fields != self._fields() or self.outcome.result is not None:
            # Edited while the preview was worked out: ctrl+s must not write old values.
            self.say("Changed since the preview: enter (or ctrl+o) to preview again.")
            return
        self.planned, self.planned_fields = (message.request, message.plan), message.fields
        plan = message.plan
        self.query_one("#plan", Static).update(plan_text(plan))
        state = "supersedes the old fact" if plan.supersedes_old else "does NOT supersede it"
        self.say(f"Will write 1 fact and {counted(len(plan.edges), 'edge')} and change "
                 f"{counted(len(plan.changes), 'property', 'properties')}; the correction "
                 f"{state}. "
                 "ctrl+s writes it (after a backup of the store).")  # fmt: skip

    # -- write, undo, close -----------------------------------------------------------------
    def action_confirm(self) -> None:
        if self.planned is None or self.running or self.outcome.result is not None:
            return
        if self._fields() != self.planned_fields:
            self.planned = None
            self.say("Changed since the preview: enter (or ctrl+o) to preview again.")
            return
        (wish, plan), home = self.planned, self.home
        self.run_write("Backing up the store, then writing the correction…",
                       lambda: correct_fact(plan, wish, home=home), self.written)  # fmt: skip

    def written(self, written: CorrectionResult) -> None:
        self.outcome = CorrectOutcome(written)
        for field in self.query(Input):
            field.disabled = True
        self.say(f"Written: {written.plan.node_id}; backup {written.backup.path.name}. "
                 "ctrl+z undoes it, escape closes.")  # fmt: skip

    def action_undo(self) -> None:
        result = self.outcome.result
        if result is None or self.outcome.undone is not None or self.running:
            return
        backup = result.backup.path
        self.run_write("Removing what the correction wrote…", lambda: undo_correction(backup),
                       self.undone)  # fmt: skip

    def undone(self, undone: UndoResult) -> None:
        self.outcome.undone = undone
        self.say(f"Undone: removed {undone.node_id} and "
                 f"{counted(undone.edges_removed, 'edge')}. escape closes.")  # fmt: skip

    def action_cancel(self) -> None:
        if self.running:  # a write cannot be stopped halfway: say so, close after it
            self.notify("Still writing: escape closes once it is done.", timeout=3)
            return
        self.dismiss(self.outcome if self.outcome.result is not None else None)

    def write_failed(self) -> None:
        # What a failed correction or undo did to the store's files is ours, not news.
        self.session.end_write(self.store)
