"""The keys of the whole-value modal (value_modal.py)."""

from memexplorer.app.command import Commands

__all__ = ["VALUE_COMMANDS"]

VALUE_COMMANDS = Commands.table("A whole value", """
    value.close  escape,q,v  dismiss  Close
        Back to where the value was
    value.copy   c           copy     Copy
        Copy the whole value to the clipboard
""")  # fmt: skip
