"""The keys of the error modal (error_modal.py)."""

from memexplorer.app.command import Command, Commands

__all__ = ["ERROR_COMMANDS"]

ERROR_COMMANDS = Commands(
    "An error",
    Command("error.close", "escape,enter", "dismiss", "Close", "Close the error"),
    Command("error.copy", "c", "copy", "Copy", "Copy the error's title and message"),
)
