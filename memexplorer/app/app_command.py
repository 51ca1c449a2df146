"""One command of the app: its key, action, footer and palette entry, and help line
(:mod:`.app_commands` holds every one)."""

from __future__ import annotations

from dataclasses import dataclass

from textual.binding import Binding

__all__ = ["AppCommand"]


@dataclass(frozen=True)
class AppCommand:
    id: str
    key: str
    action: str
    title: str
    help: str
    scope: str
    footer: bool = True
    palette: bool = True
    #: Before the focused widget's own keys (an editor would take ctrl+up itself).
    priority: bool = False
    #: Place in the footer, lowest first, so the keys that matter most show even
    #: when a narrow window cuts the footer short.
    rank: int = 100

    def binding(self) -> Binding:
        return Binding(
            self.key, self.action, self.title, show=self.footer, id=self.id, priority=self.priority
        )
