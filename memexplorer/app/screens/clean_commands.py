"""The commands of a clean's preview (clean_modal.py)."""

from memexplorer.app.command import Command, Commands

__all__ = ["CLEAN_COMMANDS"]

CLEAN_COMMANDS = Commands(
    "Clean (preview, then delete)",
    Command("clean_confirm", "y", "screen.confirm", "Delete",
            "Back up, then delete what the preview lists"),
    Command("clean_cancel", "escape", "screen.cancel", "Cancel",
            "Close without changing anything"),
)  # fmt: skip
