"""The keys of the offer to install the engine a store needs (engine_offer_modal.py)."""

from memexplorer.app.command import Commands

__all__ = ["ENGINE_OFFER_COMMANDS"]

ENGINE_OFFER_COMMANDS = Commands.table("An engine release to install", """
    offer.close    escape  close    Close
        Close without installing (not while the install runs)
    offer.copy     c       copy     Copy command
        Copy the command that installs the release the store needs
    offer.install  y       install  Install
        Install that release here, into memexplorer's engine cache (not in a served session)
""")  # fmt: skip
