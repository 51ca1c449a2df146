"""The commands of the backups (backups_screen.py)."""

from memexplorer.app.command import Commands

__all__ = ["BACKUPS_COMMANDS", "RESTORE_COMMANDS"]

BACKUPS_COMMANDS = Commands.table("Backups", """
    backup_restore  r       screen.restore  Restore
        Write the backup under the cursor back into its store (after a confirm; enter too)
    close_backups   escape  screen.close    Close
        Back to the stores
""")  # fmt: skip

RESTORE_COMMANDS = Commands.table("Restore a backup (confirm)", """
    restore.yes  y         answer(True)   Restore
        Go ahead with the restore
    restore.no   escape,n  answer(False)  Cancel
        Close without changing anything
""")  # fmt: skip
