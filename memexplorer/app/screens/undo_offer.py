"""The undo a screen offers after one of its writes: the write's backup (or backups),
put back on a key while the notification that offers it is up.

Older writes are restored from the Backups screen; the warning says so.
"""

from __future__ import annotations

import time
from typing import Generic, TypeVar

from memexplorer.app.screens.operator_screen import OperatorScreen

__all__ = ["UNDO_SECONDS", "UndoOffer"]

#: How long the undo of a write is offered (the notification's lifetime), seconds.
UNDO_SECONDS = 20.0

#: What a write saved: one backup record, or one per store it wrote.
Saved = TypeVar("Saved")


class UndoOffer(OperatorScreen[None], Generic[Saved]):
    """A screen mixin: offer the undo of a write, then take the offer once."""

    _offered: tuple[Saved, float] | None = None

    @property
    def undo_offered(self) -> Saved | None:
        """What the undo on offer would put back (None: none is offered)."""
        return None if self._offered is None else self._offered[0]

    def offer_undo(self, saved: Saved, note: str, title: str) -> None:
        """Notify ``note`` for as long as the undo of the write that ``saved`` lasts."""
        self._offered = (saved, time.monotonic() + UNDO_SECONDS)
        self.notify(note, title=title, timeout=UNDO_SECONDS)

    def take_undo(self, older: str) -> Saved | None:
        """What the write saved, once, while the offer lasts; else None, with a warning
        that says where ``older`` writes are restored from."""
        if self._offered is None or time.monotonic() > self._offered[1]:
            self.notify(f"Nothing to undo now; restore older {older}", severity="warning")
            return None
        saved, self._offered = self._offered[0], None
        return saved
