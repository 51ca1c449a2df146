"""The commands of a change's confirm (confirm_modal.py)."""

from memexplorer.app.command import Command, Commands

__all__ = ["CONFIRM_COMMANDS"]

CONFIRM_COMMANDS = Commands(
    "Confirm a change",
    Command("confirm_yes", "y", "screen.confirm", "Confirm",
            "Go ahead with the change"),
    Command("confirm_no", "escape", "screen.cancel", "Cancel",
            "Close without changing anything"),
)  # fmt: skip
