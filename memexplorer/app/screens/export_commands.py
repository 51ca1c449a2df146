"""The commands of an export (export_modal.py)."""

from memexplorer.app.command import Commands

__all__ = ["EXPORT_COMMANDS"]

EXPORT_COMMANDS = Commands.table("Export an agent", """
    export_start   ctrl+s  screen.start   Export  [priority]
        Write the file (whole, or not at all)
    export_cancel  escape  screen.cancel  Cancel
        Close without writing anything
""")  # fmt: skip
