"""A command and a screen's set of them: each command defined once, beside the
screen that owns it (``screens/chain_commands.py`` beside ``chain_screen.py``).

A screen's footer keys (``BINDINGS``), its entries in the command palette and its
lines on the help screen all come from its :class:`Commands`; a binding's id is the
command's, so users remap it through ``App.set_keymap`` (``[keys]`` in the settings).

A screen writes its commands as a table, one command a row, read into typed
:class:`Command` objects when the module loads (a malformed row stops the import)::

    CHAIN_COMMANDS = Commands.table("Temporal chains", '''
        close_chains  escape  screen.close                Close
            Back to where the chains were opened from
        focus_chains  l       screen.focus_on('#chains')  Chains  [no footer]
            Move to the list of chains
    ''')

A row is the command's id, its key(s) (comma-separated), its action and its title,
then its help line indented below it. Flags in brackets after the title: ``no
footer``, ``no palette``, ``priority`` (before the focused widget's own keys) and
``rank N`` (its place in the footer).
"""

from __future__ import annotations

import re
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

    @classmethod
    def table(cls, title: str, rows: str) -> Commands:
        """The commands of a table written as the module docstring shows."""
        return cls(title, *_read_table(title, rows))

    def __iter__(self) -> Iterator[Command]:
        return iter(self.commands)

    def bindings(self) -> list[Binding]:
        """The screen's ``BINDINGS``, in footer order (its most important keys first)."""
        return [command.binding() for command in sorted(self, key=lambda c: c.rank)]

    def palette(self) -> list[Command]:
        return [command for command in self if command.palette]


_ROW = re.compile(r"(?P<id>\S+)\s+(?P<key>\S+)\s+(?P<action>\S+)\s+(?P<title>[^\[]+?)"
                  r"(?:\s+\[(?P<flags>[^\]]*)\])?")  # fmt: skip


def _read_table(title: str, rows: str) -> list[Command]:
    """Rows at the table's least indent start a command; deeper lines are its help."""
    lines = [line for line in rows.splitlines() if line.strip()]
    indent = min((len(line) - len(line.lstrip()) for line in lines), default=0)
    heads: list[tuple[str, list[str]]] = []
    for line in lines:
        if len(line) - len(line.lstrip()) == indent or not heads:
            heads.append((line.strip(), []))
        else:
            heads[-1][1].append(line.strip())
    return [_command(title, head, " ".join(help_lines)) for head, help_lines in heads]


def _command(table: str, head: str, help_line: str) -> Command:
    row = _ROW.fullmatch(head)
    if row is None or not help_line:
        raise ValueError(
            f"The {table!r} commands: {head!r} is not 'id keys action Title [flags]' with "
            "its help line indented below it"
        )
    footer = palette = True
    priority = False
    rank = 100
    for flag in filter(None, (part.strip() for part in (row["flags"] or "").split(","))):
        number = flag.removeprefix("rank ")
        if flag == "no footer":
            footer = False
        elif flag == "no palette":
            palette = False
        elif flag == "priority":
            priority = True
        elif number != flag and number.isdigit():
            rank = int(number)
        else:
            raise ValueError(
                f"The {table!r} commands, {row['id']}: {flag!r} is not a flag; the flags "
                "are no footer, no palette, priority and rank N"
            )
    return Command(row["id"], row["key"], row["action"], row["title"], help_line,
                   footer=footer, palette=palette, priority=priority, rank=rank)  # fmt: skip
