"""The commands of correcting a fact (correct_modal.py)."""

from memexplorer.app.command import Commands

__all__ = ["CORRECT_COMMANDS"]

CORRECT_COMMANDS = Commands.table("Correct a fact", """
    correct_preview  ctrl+o  screen.preview  Preview  [priority]
        Work out every row, edge and property change the correction writes
    correct_confirm  ctrl+s  screen.confirm  Write    [priority]
        Back up the store, then write what the preview shows
    correct_undo     ctrl+z  screen.undo     Undo     [priority]
        Remove what the correction wrote (while this stays open)
    correct_cancel   escape  screen.cancel   Close
        Close (nothing is written unless you pressed ctrl+s)
""")  # fmt: skip
