"""The keys of the help screen (help_screen.py)."""

from memexplorer.app.command import Command, Commands

__all__ = ["HELP_COMMANDS"]

HELP_COMMANDS = Commands(
    "Help",
    Command("help.close", "escape,q,f1,question_mark", "dismiss", "Close", "Close the help"),
)
