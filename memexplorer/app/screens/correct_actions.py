"""``E`` on a fact in the node table (``e`` is export there): the correct modal.

A mixin for :class:`~.main_screen.MainScreen`, beside its other operator actions.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from textual.screen import Screen

from memexplorer.app.operator_session import OperatorSession
from memexplorer.app.screens.operator_actions import OperatorActions
from memexplorer.app.session_mode import write_action
from memexplorer.app.widgets.node_table import NodeTable

#: The fact tables: HierarchicalMemory's, and amplihack-rs's SQLite one.
FACT_TABLES = ("SemanticMemory", "semantic_memories")


def open_correct(
    screen: Screen[None], session: OperatorSession, store: Path, agent: str, key: str,
    after: Callable[[], None],
) -> None:  # fmt: skip
    """Push the correct modal for one fact; ``after`` runs once something was written."""
    from memexplorer.app.screens.correct_modal import CorrectModal, CorrectOutcome

    def done(outcome: CorrectOutcome | None) -> None:
        if outcome is not None:
            after()

    home = session.home(store)
    screen.app.push_screen(CorrectModal(session, store, agent, key, home), done)


class CorrectRow(OperatorActions):
    @write_action("Correct")
    def action_correct_row(self) -> None:
        """Correct the fact under the node table's cursor."""
        table = self.query_one(NodeTable)
        source, page = table.source, table.page
        found = self._cursor_key()
        if found is None or page is None or source is None or source.table.name not in FACT_TABLES:
            self.notify("Open a fact table (SemanticMemory) and put the cursor on a fact first",
                        severity="warning")  # fmt: skip
            return
        _, key = found
        from textual_fastdatatable import DataTable

        row = table.query_one("#grid", DataTable).cursor_row
        agent = source.agent or str(page.data.column("agent_id")[row].as_py() or "")
        open_correct(self, self.session, source.browser.path, agent, key, self.reload_after_write)
