"""The keys of the whole-value modal (value_modal.py)."""

from memexplorer.app.command import Command, Commands

__all__ = ["VALUE_COMMANDS"]

VALUE_COMMANDS = Commands(
    "A whole value",
    Command("value.close", "escape,q,v", "dismiss", "Close", "Back to where the value was"),
    Command("value.copy", "c", "copy", "Copy", "Copy the whole value to the clipboard"),
)
