"""The commands of an export (export_modal.py)."""

from memexplorer.app.command import Command, Commands

__all__ = ["EXPORT_COMMANDS"]

EXPORT_COMMANDS = Commands(
    "Export an agent",
    Command("export_start", "ctrl+s", "screen.start", "Export",
            "Write the file (whole, or not at all)", priority=True),
    Command("export_cancel", "escape", "screen.cancel", "Cancel",
            "Close without writing anything"),
)  # fmt: skip
