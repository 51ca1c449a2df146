"""The keys of the help screen (help_screen.py)."""

from memexplorer.app.command import Commands

__all__ = ["HELP_COMMANDS"]

HELP_COMMANDS = Commands.table("Help", """
    help.close  escape,q,f1,question_mark  dismiss  Close
        Close the help
""")  # fmt: skip
