"""The commands of an import (import_modal.py)."""

from memexplorer.app.command import Command, Commands

__all__ = ["IMPORT_COMMANDS"]

IMPORT_COMMANDS = Commands(
    "Import into an agent",
    Command("import_preview", "ctrl+o", "screen.preview", "Preview",
            "Read the file and show what it holds and what will change", priority=True),
    Command("import_merge", "ctrl+t", "screen.toggle_merge", "Replace/merge",
            "Replace the agent's memory, or merge (ids already there are skipped)", priority=True),
    Command("import_confirm", "ctrl+s", "screen.confirm", "Import",
            "Import what the preview shows", priority=True),
    Command("import_cancel", "escape", "screen.cancel", "Cancel",
            "Close without changing anything"),
)  # fmt: skip
