"""A command and a screen's set of them: each command defined once, beside the
screen that owns it (``screens/chain_commands.py`` beside ``chain_screen.py``).

A screen's footer keys (``BINDINGS``), its entries in the command palette and its
lines on the help screen all come from its :class:`Commands`; a binding's id is the
command's, so users remap it through ``App.set_keymap`` (``[keys]`` in the settings).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from textual.binding import Binding

__all__ = ["Command", "Commands"]


@dataclass(frozen=True)
class Command:
    """One command: its id, key(s), action, footer title and help line."""

    id: str
    #: One key or several, comma-separated (``"escape,q"``).
    key: str
    #: A Textual action: ``app.x`` runs on the app; anything else on the screen.
    action: str
    title: str
    help: str
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

    def on_app(self) -> bool:
        return self.action.startswith("app.")

    def action_name(self) -> str:
        """The action without its namespace (``screen.select('up')`` -> ``select('up')``)."""
        namespace, dot, rest = self.action.partition(".")
        return rest if dot and namespace in ("app", "screen") else self.action


class Commands:
    """One screen's commands, in the order its help lists them, under a heading."""

    def __init__(self, title: str, *commands: Command) -> None:
        self.title = title
        self.commands = commands

    def __iter__(self) -> Iterator[Command]:
        return iter(self.commands)

    def bindings(self) -> list[Binding]:
        """The screen's ``BINDINGS``, in footer order (its most important keys first)."""
        return [command.binding() for command in sorted(self, key=lambda c: c.rank)]

    def palette(self) -> list[Command]:
        return [command for command in self if command.palette]
