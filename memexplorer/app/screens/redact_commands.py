"""The commands of a redaction's confirm (redact_modal.py)."""

from memexplorer.app.command import Commands

__all__ = ["REDACT_COMMANDS"]

REDACT_COMMANDS = Commands.table("Redact (confirm)", """
    redact_confirm  y       screen.confirm  Redact
        Back up, then redact the values listed
    redact_cancel   escape  screen.cancel   Cancel
        Close without changing anything
""")  # fmt: skip
