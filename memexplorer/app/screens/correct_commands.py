"""The commands of correcting a fact (correct_modal.py)."""

from memexplorer.app.command import Command, Commands

__all__ = ["CORRECT_COMMANDS"]

CORRECT_COMMANDS = Commands(
    "correct",
    Command("correct_preview", "ctrl+o", "screen.preview", "Preview",
            "Work out every row, edge and property change the correction writes", priority=True),
    Command("correct_confirm", "ctrl+s", "screen.confirm", "Write",
            "Back up the store, then write what the preview shows", priority=True),
    Command("correct_undo", "ctrl+z", "screen.undo", "Undo",
            "Remove what the correction wrote (while this stays open)", priority=True),
    Command("correct_cancel", "escape", "screen.cancel", "Close",
            "Close (nothing is written unless you pressed ctrl+s)"),
)  # fmt: skip
