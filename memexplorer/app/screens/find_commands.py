"""The commands of find anywhere (find_screen.py)."""

from memexplorer.app.command import Commands

__all__ = ["FIND_COMMANDS"]

FIND_COMMANDS = Commands.table("Find in every store", """
    find_stop     escape  screen.stop_or_close              Stop / close
        Stop the search that is running; with none running, close
    find_results  ctrl+r  screen.focus_on('#find-results')  Results       [priority]
        Move to the results (enter opens one, or shows more of a group)
""")  # fmt: skip
