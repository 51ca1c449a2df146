"""The keys of the retrieval walk of one fact (why_not_screen.py)."""

from memexplorer.app.command import Commands

__all__ = ["WHY_NOT_COMMANDS"]

WHY_NOT_COMMANDS = Commands.table("Why (not)?", """
    why.close  escape,q,w  dismiss  Close
        Back to the query box
""")  # fmt: skip
