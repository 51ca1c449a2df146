"""The commands of a merge's preview (merge_modal.py)."""

from memexplorer.app.command import Commands

__all__ = ["MERGE_COMMANDS"]

MERGE_COMMANDS = Commands.table("Merge duplicates (confirm)", """
    merge_confirm  y       screen.confirm  Merge
        Back up the facts, then write what the preview lists
    merge_cancel   escape  screen.cancel   Cancel
        Close without changing anything
""")  # fmt: skip
