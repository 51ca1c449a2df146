"""The commands of the groups of duplicates (duplicates_screen.py)."""

from memexplorer.app.command import Command, Commands

__all__ = ["DUPLICATES_COMMANDS"]

DUPLICATES_COMMANDS = Commands(
    "duplicates",
    Command("duplicates_merge", "m", "screen.merge", "Merge",
            "Preview, then merge the group: the kept fact supersedes the others (after a backup)",
            rank=1),
    Command("duplicates_keep", "k", "screen.keep", "Keep this",
            "Keep the fact under the cursor when its group is merged (default: the newest)",
            rank=2),
    Command("duplicates_toggle", "space", "screen.toggle", "In/out",
            "Leave the fact under the cursor out of the merge, or put it back in", rank=3),
    Command("duplicates_raise", "right_square_bracket", "screen.threshold(0.05)", "Threshold up",
            "Raise the similarity threshold by 0.05: fewer, closer groups", rank=4),
    Command("duplicates_lower", "left_square_bracket", "screen.threshold(-0.05)", "Threshold down",
            "Lower the similarity threshold by 0.05: more groups", rank=5),
    Command("duplicates_undo", "u", "screen.undo", "Undo merge",
            "Take back the last merge made here (refused if the merged facts changed since)",
            rank=6),
    Command("duplicates_open", "o", "screen.open_fact", "Open",
            "Open the fact under the cursor", footer=False),
    Command("duplicates_again", "r", "screen.search_again", "Search again",
            "Look for the groups again at the threshold shown", footer=False),
    Command("duplicates_close", "escape", "screen.stop_or_close", "Close",
            "Stop the search that runs; else back to the stores"),
)  # fmt: skip
