"""Notifications that show their text as written.

The app's notes name paths, agents and tables read from stores, and none is
styled with markup; ``Widget.notify`` passes ``markup=True`` by default, so an
App that honoured the argument would read ``[/]`` in an agent's name as markup
(see literal.py).
"""

from __future__ import annotations

from textual.app import App
from textual.notifications import SeverityLevel

__all__ = ["PlainNotifications"]


class PlainNotifications(App[None]):
    """An App whose every notification is plain text (``markup`` is not honoured)."""

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = False,
    ) -> None:
        super().notify(message, title=title, severity=severity, timeout=timeout, markup=False)
