"""Help made from the commands themselves, so it never drifts from the keys."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widgets import Markdown

from memexplorer.app.app_commands import commands_for
from memexplorer.app.screens.modal_dialog import DIALOG_CSS, ModalDialog

_SCOPE_TITLES = {"app": "Everywhere", "main": "Stores and tables", "node": "A node",
                 "query": "The query box", "graph": "The neighbourhood graph",
                 "chain": "Temporal chains", "console": "The query console",
                 "clean": "Clean (preview, then delete)", "backups": "Backups",
                 "export": "Export an agent", "import": "Import into an agent",
                 "audit": "Credential audit", "redact": "Redact (confirm)",
                 "confirm": "Confirm a change"}  # fmt: skip


def _keys(text: str) -> str:
    names = {"slash": "/", "question_mark": "?", "escape": "esc", "pagedown": "PgDn",
             "pageup": "PgUp", "plus": "+", "minus": "-", "left_square_bracket": "[",
             "right_square_bracket": "]", "delete": "Del",
             "shift+delete": "shift+Del"}  # fmt: skip
    return " or ".join(names.get(k, k) for k in text.split(","))


def help_markdown(scopes: list[str], screen_help: str = "") -> str:
    """The help text for a screen: what it is for, then its keys and the app's."""
    lines = [screen_help, ""] if screen_help else []
    for scope in scopes:
        lines += [f"## {_SCOPE_TITLES.get(scope, scope)}", "", "| key | command | what it does |",
                  "|---|---|---|"]  # fmt: skip
        lines += [f"| `{_keys(c.key)}` | {c.title} | {c.help} |" for c in commands_for(scope)]
        lines.append("")
    return "\n".join(lines)


class HelpScreen(ModalDialog[None]):
    """The keys of the screen underneath and of the whole app."""

    CSS_PATH = [DIALOG_CSS, "help_screen.tcss"]
    BINDINGS = [Binding("escape,q,f1,question_mark", "dismiss", "Close", id="help.close")]

    def __init__(self, scopes: list[str], screen_help: str = "") -> None:
        super().__init__()
        self.markdown = help_markdown(scopes, screen_help)

    def compose(self) -> ComposeResult:
        with VerticalScroll() as scroll:
            scroll.border_title = "Help"
            yield Markdown(self.markdown)
