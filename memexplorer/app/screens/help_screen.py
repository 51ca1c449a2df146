"""Help made from the commands themselves, so it never drifts from the keys."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.keys import format_key
from textual.widgets import Markdown

from memexplorer.app.command import Commands
from memexplorer.app.screens.help_commands import HELP_COMMANDS
from memexplorer.app.screens.modal_dialog import DIALOG_CSS, ModalDialog

#: How help names keys where Textual's own display differs from what operators read.
_NAMES = {"escape": "esc", "pagedown": "PgDn", "pageup": "PgUp", "delete": "Del",
          "shift+delete": "shift+Del"}  # fmt: skip


def key_shown(key: str) -> str:
    """One key as help shows it: a character key as its character ("<", ":", "?"),
    a named key as its name ("enter", "ctrl+r")."""
    if key in _NAMES:
        return _NAMES[key]
    shown = format_key(key)
    return shown if len(shown) == 1 and shown.isascii() and shown.isprintable() else key


def _keys(text: str) -> str:
    return " or ".join(key_shown(k) for k in text.split(","))


def help_markdown(groups: list[Commands], screen_help: str = "") -> str:
    """The help text for a screen: what it is for, then its keys and the app's."""
    lines = [screen_help, ""] if screen_help else []
    for group in groups:
        lines += [f"## {group.title}", "", "| key | command | what it does |", "|---|---|---|"]
        lines += [f"| `{_keys(c.key)}` | {c.title} | {c.help} |" for c in group]
        lines.append("")
    return "\n".join(lines)


class HelpScreen(ModalDialog[None]):
    """The keys of the screen underneath and of the whole app."""

    CSS_PATH = [DIALOG_CSS, "help_screen.tcss"]
    SCREEN_COMMANDS = HELP_COMMANDS

    def __init__(self, groups: list[Commands], screen_help: str = "") -> None:
        super().__init__()
        self.markdown = help_markdown(groups, screen_help)

    def compose(self) -> ComposeResult:
        with VerticalScroll() as scroll:
            scroll.border_title = "Help"
            yield Markdown(self.markdown)
