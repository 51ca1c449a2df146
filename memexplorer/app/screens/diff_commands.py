"""The commands of what changed (diff_screen.py)."""

from memexplorer.app.command import Commands

__all__ = ["DIFF_COMMANDS"]

DIFF_COMMANDS = Commands.table("What changed", """
    diff_open   o       screen.open_record  Open
        Open the node of the fact or episode under the cursor (as it is now)
    diff_close  escape  screen.close        Close
        Back to where the diff was opened from
""")  # fmt: skip
