"""The commands of merge duplicates (issue 19), part of the app's one command table
(:data:`.app_commands.COMMANDS`)."""

from __future__ import annotations

from memexplorer.app.app_command import AppCommand

__all__ = ["MERGE_COMMANDS"]

MERGE_COMMANDS: tuple[AppCommand, ...] = (
    AppCommand("duplicates", "d", "screen.duplicates", "Duplicates",
               "Groups of near-identical facts of the agent under the cursor; merge one the "
               "agent's way", "main", footer=False),
    # The groups of duplicates.
    AppCommand("duplicates_merge", "m", "screen.merge", "Merge",
               "Preview, then merge the group: the kept fact supersedes the others (after a "
               "backup)", "duplicates", rank=1),
    AppCommand("duplicates_keep", "k", "screen.keep", "Keep this",
               "Keep the fact under the cursor when its group is merged (default: the newest)",
               "duplicates", rank=2),
    AppCommand("duplicates_toggle", "space", "screen.toggle", "In/out",
               "Leave the fact under the cursor out of the merge, or put it back in",
               "duplicates", rank=3),
    AppCommand("duplicates_raise", "right_square_bracket", "screen.threshold(0.05)",
               "Threshold up", "Raise the similarity threshold by 0.05: fewer, closer groups",
               "duplicates", rank=4),
    AppCommand("duplicates_lower", "left_square_bracket", "screen.threshold(-0.05)",
               "Threshold down", "Lower the similarity threshold by 0.05: more groups",
               "duplicates", rank=5),
    AppCommand("duplicates_undo", "u", "screen.undo", "Undo merge",
               "Take back the last merge made here (refused if the merged facts changed since)",
               "duplicates", rank=6),
    AppCommand("duplicates_open", "o", "screen.open_fact", "Open",
               "Open the fact under the cursor", "duplicates", footer=False),
    AppCommand("duplicates_again", "r", "screen.search_again", "Search again",
               "Look for the groups again at the threshold shown", "duplicates", footer=False),
    AppCommand("duplicates_close", "escape", "screen.stop_or_close", "Close",
               "Stop the search that runs; else back to the stores", "duplicates"),
    # A merge's preview.
    AppCommand("merge_confirm", "y", "screen.confirm", "Merge",
               "Back up the facts, then write what the preview lists", "merge"),
    AppCommand("merge_cancel", "escape", "screen.cancel", "Cancel",
               "Close without changing anything", "merge"),
)  # fmt: skip
