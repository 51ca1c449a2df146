"""An agent's groups of near-identical facts, newest first, and merging one of them.

The groups come from :func:`memexplorer.operator.duplicates.find_duplicates` at a
threshold the operator moves with ``[`` and ``]``; ``m`` previews and merges the
group under the cursor (:class:`.merge_modal.MergeModal`), keeping its newest fact
or the one chosen with ``k``, and superseding the others ``space`` left in;
``u`` takes the last merge back. The search runs in a worker
(:class:`.duplicates_search.DuplicatesSearch`); ``escape`` stops it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import DataTable, Footer, Header, Static

from memexplorer.app.literal import cell
from memexplorer.app.operator_session import OperatorSession
from memexplorer.app.screens.duplicates_commands import DUPLICATES_COMMANDS
from memexplorer.app.screens.duplicates_search import DuplicatesSearch
from memexplorer.app.screens.merge_choice import MergeChoice
from memexplorer.app.session_mode import write_action
from memexplorer.app.widgets.node_ref import NodeRef
from memexplorer.operator.backup_records import BackupRecord, RestoreResult
from memexplorer.operator.duplicates import DEFAULT_THRESHOLD
from memexplorer.operator.duplicates_grouping import DuplicateGroup
from memexplorer.operator.merge import MergeResult
from memexplorer.operator.wording import counted

_STEP = 0.05


def _short(text: str, width: int = 64) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


class DuplicatesScreen(DuplicatesSearch):
    """The groups of one agent; dismissed with True when a merge (or undo) wrote."""

    SCREEN_COMMANDS = DUPLICATES_COMMANDS
    HELP = (
        "Facts of one concept whose similarity (the library's: 0.5 x content words, 0.2 x "
        "tags, 0.3 x concept) is at least the threshold, grouped, newest group first. "
        "**[** and **]** move the threshold. **m** merges the group under the cursor: its "
        "kept fact (the newest, or the one chosen with **k**) supersedes the others as the "
        "store's own writer supersedes a fact, after a preview and a backup; **space** "
        "leaves the fact under the cursor out of the merge (or puts it back: [x] in, [ ] "
        "out); **u** takes the last merge back. Facts superseded already are not listed. "
        "**escape** stops a search that runs (else closes); **r** searches again."
    )
    CSS_PATH = "duplicates_screen.tcss"

    @dataclass
    class Undone(Message):
        result: RestoreResult

    def __init__(
        self,
        session: OperatorSession,
        store: Path,
        agent: str,
        threshold: float = DEFAULT_THRESHOLD,
    ) -> None:
        super().__init__(session, store, agent, threshold)
        self.home = session.home(store)
        #: The fact kept and the facts left out, per group.
        self.choice = MergeChoice()
        self.last_merge: BackupRecord | None = None
        self.wrote = False

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(Text(f"{self.agent}: looking for duplicates…", style="dim"), id="dup-title")
        with Vertical():
            yield DataTable(id="groups", cursor_type="row")
            yield DataTable(id="facts", cursor_type="row")
        yield Footer()

    def on_mount(self) -> None:
        self.sub_title = f"duplicates · {self.agent} · {self.store}"
        self.query_one("#groups", DataTable).add_columns("concept", "facts", "newest")
        self.query_one("#facts", DataTable).add_columns("in", "sim.", "memory_id", "created",
                                                        "content")  # fmt: skip
        self.find()

    def on_duplicates_search_found(self, message: DuplicatesSearch.Found) -> None:
        if message.search != self.search:
            return  # an answer of a search since stopped or replaced
        self.searching = False
        report = self.report = message.report
        groups = self.query_one("#groups", DataTable)
        groups.clear()
        for index, group in enumerate(report.groups):
            groups.add_row(cell(_short(group.concept, 60)), str(len(group.facts)),
                           cell(group.newest.created_at[:16]), key=str(index))  # fmt: skip
        found = (f"{counted(len(report.groups), 'group')} of "
                 f"{counted(report.duplicates, 'duplicate')}" if report.groups
                 else "no duplicates")  # fmt: skip
        title = Text(f"{self.agent}: ", style="bold")
        title.append(
            f"{found} at similarity ≥ {report.threshold:.2f} among {counted(report.facts, 'fact')}"
            f" ({report.superseded:,} superseded already); merges supersede as {report.writer}"
        )
        if message.note:
            title.append(f"\n{message.note}", style="green")
        self.query_one("#dup-title", Static).update(title)
        self.show_group()
        groups.focus()

    # -- the chosen group ----------------------------------------------------------------
    def group(self) -> DuplicateGroup | None:
        if self.report is None or not self.report.groups:
            return None
        row = self.query_one("#groups", DataTable).cursor_row
        return self.report.groups[min(max(row, 0), len(self.report.groups) - 1)]

    def show_group(self) -> None:
        facts = self.query_one("#facts", DataTable)
        facts.clear()
        group = self.group()
        if group is None:
            return
        keep_id = self.choice.keep_of(group)
        keep = next(f for f in group.facts if f.memory_id == keep_id)
        # The content gets what the other columns leave of the width (2 a column padding).
        width = max(24, self.size.width - 4 - max(len(f.memory_id) for f in group.facts)
                    - 16 - 3 - 2 * 5 - 2)  # fmt: skip
        for fact in group.facts:
            kept = fact.memory_id == keep_id
            score = f"{group.score_with(keep, fact):.2f}"
            chosen = self.choice.is_in(group, fact.memory_id)
            mark = Text("[x]") if chosen else Text("[ ]", style="dim")
            facts.add_row(mark, Text("keep", style="bold green") if kept else score,
                          cell(fact.memory_id), cell(fact.created_at[:16]),
                          Text(_short(fact.content, width), style="" if chosen else "dim strike"),
                          key=fact.memory_id)  # fmt: skip

    @on(DataTable.RowHighlighted, "#groups")
    def group_highlighted(self) -> None:
        self.show_group()

    @on(DataTable.RowSelected, "#groups")
    def group_selected(self) -> None:
        self.query_one("#facts", DataTable).focus()

    def _fact_under_cursor(self) -> str | None:
        facts = self.query_one("#facts", DataTable)
        if self.group() is None or not facts.row_count:
            return None
        return str(facts.coordinate_to_cell_key(facts.cursor_coordinate).row_key.value)

    # -- commands ------------------------------------------------------------------------
    def action_threshold(self, step: float) -> None:
        value = round(min(1.0, max(_STEP, self.threshold + step)), 2)
        if value != self.threshold:
            self.threshold = value
            self.choice.clear()
            self.find()

    def action_search_again(self) -> None:
        self.choice.clear()
        self.find()

    def action_keep(self) -> None:
        group, memory_id = self.group(), self._fact_under_cursor()
        if group is None or memory_id is None:
            self.notify("Move to a fact of a group first", severity="warning")
            return
        self.choice.keep(group, memory_id)
        self._redraw(memory_id)

    def action_toggle(self) -> None:
        group, memory_id = self.group(), self._fact_under_cursor()
        if group is None or memory_id is None:
            self.notify("Move to a fact of a group first", severity="warning")
            return
        if not self.choice.toggle(group, memory_id):
            self.notify("The kept fact stays in the merge; keep another one first (k)",
                        severity="warning")  # fmt: skip
            return
        self._redraw(memory_id)

    def _redraw(self, memory_id: str) -> None:
        """The group's facts drawn again, the cursor staying on ``memory_id``."""
        self.show_group()
        facts = self.query_one("#facts", DataTable)
        facts.move_cursor(row=facts.get_row_index(memory_id))

    def action_open_fact(self) -> None:
        memory_id = self._fact_under_cursor()
        if memory_id is not None and self.report is not None:
            table = "semantic_memories" if self.report.engine == "sqlite" else "SemanticMemory"
            self.session.open_node(NodeRef(self.store, table, memory_id))

    @write_action("Merge")
    def action_merge(self) -> None:
        from memexplorer.app.screens.merge_modal import MergeModal

        group = self.group()
        if group is None:
            self.notify("No group to merge at this threshold", severity="warning")
            return
        keep, others = self.choice.keep_of(group), self.choice.others(group)
        if not others:
            self.notify("A merge needs at least two facts: the kept one and one more in the "
                        "merge (space puts a fact back in)", severity="warning")  # fmt: skip
            return
        modal = MergeModal(self.session, self.store, self.agent, keep, others, self.home)
        self.app.push_screen(modal, self._merged)

    def _merged(self, result: MergeResult | None) -> None:
        if result is None:
            return
        self.wrote = True
        self.session.wrote([self.store])  # our own write
        self.last_merge = result.backup
        self.choice.clear()
        note = (f"merged {counted(len(result.plan.others), 'fact')} into "
                f"{result.plan.keep.memory_id}; u takes it back")  # fmt: skip
        self.notify(f"{note} (backup {result.backup.path.name})", title="Merged")
        self.find(note)

    @write_action("Undo")
    def action_undo(self) -> None:
        if self.last_merge is None:
            self.notify("No merge to take back here; older ones are in Backups (b)",
                        severity="warning")  # fmt: skip
            return
        record, self.last_merge = self.last_merge, None
        self.stop(quiet=True)
        self.session.begin_write(self.store)  # see PreviewWriteModal.run_write
        self.undo(record.path)

    @work(thread=True, exclusive=True, group="duplicates", exit_on_error=False)
    def undo(self, backup: Path) -> None:
        from memexplorer.operator.backups import restore_backup

        self.post_message(self.Undone(restore_backup(backup)))

    def on_duplicates_screen_undone(self, message: Undone) -> None:
        self.wrote = True
        self.session.end_write(self.store)
        removed = sum(getattr(t, "removed", 0) for t in message.result.tables.values())
        note = f"merge taken back: {counted(removed, 'edge')} removed, the facts as they were"
        self.notify(note, title="Undone")
        self.find(note)

    def action_stop_or_close(self) -> None:
        if not self.stop():
            self.dismiss(self.wrote)
