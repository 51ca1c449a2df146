"""The commands of a clean's preview (clean_modal.py)."""

from memexplorer.app.command import Commands

__all__ = ["CLEAN_COMMANDS"]

CLEAN_COMMANDS = Commands.table("Clean (preview, then delete)", """
    clean_confirm  y       screen.confirm  Delete
        Back up, then delete what the preview lists
    clean_cancel   escape  screen.cancel   Cancel
        Close without changing anything
""")  # fmt: skip
