"""The stores screen's export and import: a modal each, previewed, then written.

A mixin for :class:`MainScreen` beside :class:`OperatorActions` (what the operator
points at, backups' home, the reload after a write). The modals and the transfer
code load when first opened.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from memexplorer.app.screens.operator_actions import OperatorActions
from memexplorer.app.session_mode import write_action

if TYPE_CHECKING:
    from memexplorer.operator.transfer import ExportResult, ImportResult


class TransferActions(OperatorActions):
    """Export an agent to a file, import a file into an agent."""

    @write_action("Export (it writes a file on this machine)")
    def action_export(self) -> None:
        from memexplorer.app.screens.export_modal import ExportModal

        target = self._agent_target("No export here", "export works on hierarchical agent stores")
        if target is not None:
            self.app.push_screen(
                ExportModal(self.session, target[1], target[0].path), self._exported
            )

    def _exported(self, result: ExportResult | None) -> None:
        from memexplorer.app.screens.export_modal import export_summary

        if result is not None:
            self.notify(export_summary(result), title=f"Exported {result.agent}")

    @write_action("Import")
    def action_import_file(self) -> None:
        from memexplorer.app.screens.import_modal import ImportModal

        target = self._agent_target("No import here", "import works on hierarchical agent stores")
        if target is not None:
            modal = ImportModal(
                self.session, target[1], target[0].path, home=self._home(target[0].path)
            )
            self.app.push_screen(modal, self._imported)

    def _imported(self, result: ImportResult | None) -> None:
        from memexplorer.app.screens.import_modal import import_summary

        if result is not None:
            self.reload_after_write()
            self.notify(import_summary(result), title=f"Imported into {result.agent}")
