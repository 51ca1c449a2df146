"""A whole value, for cells the table cuts short: JSON shown pretty, text wrapped;
base64 of JSON (how LadybugDB-era stores hold tags and metadata) shown decoded."""

from __future__ import annotations

import json
from typing import Any

from rich.syntax import Syntax
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from memexplorer.app.literal import literal
from memexplorer.app.screens.modal_dialog import DIALOG_CSS, ModalDialog
from memexplorer.app.screens.value_commands import VALUE_COMMANDS
from memexplorer.storage.stored_json import decode_stored_json

#: The modal's note on a value it shows decoded.
BASE64_NOTE = "stored as base64"


def pretty_value(value: Any) -> tuple[str, bool]:
    """The value as text, and whether it is JSON (JSON text is re-indented,
    base64 of JSON decoded)."""
    decoded, was_base64 = decode_stored_json(value)
    if was_base64:
        return json.dumps(decoded, indent=2, ensure_ascii=False), True
    if isinstance(value, str):
        stripped = value.strip()
        if stripped[:1] in ("{", "[") and stripped[-1:] in ("}", "]"):
            try:
                return json.dumps(json.loads(stripped), indent=2, ensure_ascii=False), True
            except ValueError:
                return value, False
        return value, False
    if isinstance(value, dict | list):
        return json.dumps(value, indent=2, ensure_ascii=False, default=str), True
    return "NULL" if value is None else str(value), False


class ValueModal(ModalDialog[None]):
    """One value in full; ``c`` copies it."""

    HELP = "The whole value. **c** copies it, **escape** closes."
    CSS_PATH = [DIALOG_CSS, "value_modal.tcss"]
    SCREEN_COMMANDS = VALUE_COMMANDS

    def __init__(self, title: str, value: Any) -> None:
        super().__init__()
        self.value_title = title
        self.text, self.is_json = pretty_value(value)
        self.note = BASE64_NOTE if decode_stored_json(value)[1] else ""

    def compose(self) -> ComposeResult:
        with VerticalScroll() as scroll:
            scroll.border_title = literal(self.value_title)
            scroll.border_subtitle = self.note
            if self.is_json:
                yield Static(Syntax(self.text, "json", word_wrap=True, theme="ansi_dark"))
            else:
                yield Static(self.text, markup=False)

    def action_copy(self) -> None:
        self.app.copy_to_clipboard(self.text)
        self.notify(f"Copied {self.value_title}")
