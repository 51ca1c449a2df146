"""The commands of an import (import_modal.py)."""

from memexplorer.app.command import Commands

__all__ = ["IMPORT_COMMANDS"]

IMPORT_COMMANDS = Commands.table("Import into an agent", """
    import_preview  ctrl+o  screen.preview       Preview        [priority]
        Read the file and show what it holds and what will change
    import_merge    ctrl+t  screen.toggle_merge  Replace/merge  [priority]
        Replace the agent's memory, or merge (ids already there are skipped)
    import_confirm  ctrl+s  screen.confirm       Import         [priority]
        Import what the preview shows
    import_cancel   escape  screen.cancel        Cancel
        Close without changing anything
""")  # fmt: skip
