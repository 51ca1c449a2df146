"""The keys of the error modal (error_modal.py)."""

from memexplorer.app.command import Commands

__all__ = ["ERROR_COMMANDS"]

ERROR_COMMANDS = Commands.table("An error", """
    error.close  escape,enter  dismiss  Close
        Close the error
    error.copy   c             copy     Copy
        Copy the error's title and message
""")  # fmt: skip
