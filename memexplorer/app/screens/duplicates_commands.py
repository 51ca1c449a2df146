"""The commands of the groups of duplicates (duplicates_screen.py)."""

from memexplorer.app.command import Commands

__all__ = ["DUPLICATES_COMMANDS"]

DUPLICATES_COMMANDS = Commands.table("Duplicate facts", """
    duplicates_merge   m                     screen.merge             Merge           [rank 1]
        Preview, then merge the group: the kept fact supersedes the others (after a backup)
    duplicates_keep    k                     screen.keep              Keep this       [rank 2]
        Keep the fact under the cursor when its group is merged (default: the newest)
    duplicates_toggle  space                 screen.toggle            In/out          [rank 3]
        Leave the fact under the cursor out of the merge, or put it back in
    duplicates_raise   right_square_bracket  screen.threshold(0.05)   Threshold up    [rank 4]
        Raise the similarity threshold by 0.05: fewer, closer groups
    duplicates_lower   left_square_bracket   screen.threshold(-0.05)  Threshold down  [rank 5]
        Lower the similarity threshold by 0.05: more groups
    duplicates_undo    u                     screen.undo              Undo merge      [rank 6]
        Take back the last merge made here (refused if the merged facts changed since)
    duplicates_open    o                     screen.open_fact         Open            [no footer]
        Open the fact under the cursor
    duplicates_again   r                     screen.search_again      Search again    [no footer]
        Look for the groups again at the threshold shown
    duplicates_close   escape                screen.stop_or_close     Close
        Stop the search that runs; else back to the stores
""")  # fmt: skip
