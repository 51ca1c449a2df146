"""The commands of an agent's history (history_screen.py)."""

from memexplorer.app.command import Commands

__all__ = ["HISTORY_COMMANDS"]

HISTORY_COMMANDS = Commands.table("An agent's history", """
    history_diff      d       screen.diff      What changed
        Compare the snapshot or backup under the cursor with the agent now (enter too)
    history_snapshot  s       screen.snapshot  Snapshot
        Keep a dated export of the agent now, to compare with later
    history_close     escape  screen.close     Close
        Back to the stores
""")  # fmt: skip
