"""The commands of a change's confirm (confirm_modal.py)."""

from memexplorer.app.command import Commands

__all__ = ["CONFIRM_COMMANDS"]

CONFIRM_COMMANDS = Commands.table("Confirm a change", """
    confirm_yes  y       screen.confirm  Confirm
        Go ahead with the change
    confirm_no   escape  screen.cancel   Cancel
        Close without changing anything
""")  # fmt: skip
