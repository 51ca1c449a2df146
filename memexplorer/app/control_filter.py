"""The app's last line of defence: no control character in a store's text reaches
the terminal (see :mod:`.terminal_text`).

Textual passes a widget's text to the terminal as it is, ESC included, so a fact
holding ``\\x1b[2J`` would clear the screen wherever it is shown: the table, a
fact's page, the query results, the chains. This filter runs over every line the
app draws, after the widgets, so no screen can forget it.
"""

from __future__ import annotations

import re

from rich.segment import Segment
from textual.color import Color
from textual.filter import LineFilter

from memexplorer.operator.terminal_text import UNSAFE_CODES

__all__ = ["ControlCharacterFilter"]

_UNSAFE = re.compile("[" + "".join(re.escape(chr(code)) for code in sorted(UNSAFE_CODES)) + "]")


class ControlCharacterFilter(LineFilter):
    """Drops control characters from the text of every segment drawn."""

    def apply(self, segments: list[Segment], background: Color) -> list[Segment]:
        if not any(_UNSAFE.search(segment.text) for segment in segments):
            return segments
        return [
            segment if segment.control else Segment(_UNSAFE.sub("", segment.text), segment.style)
            for segment in segments
        ]
