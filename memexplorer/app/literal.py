"""Values read from a store or the disk, shown as they are, never read as markup.

Textual reads a ``str`` given to a Tree, a DataTable cell, a border title or a
Static as markup (Rich's or its own): a path or an agent called ``[bold]x[/bold]``
lost its brackets, ``:fire:`` became a flame, and ``[/]`` or ``[link=https://…]``
raised MarkupError and ended the app. Data goes through these; the app's own
styling stays in Text styles.
"""

from __future__ import annotations

from rich.text import Text

__all__ = ["cell", "literal"]


def literal(value: object) -> Text:
    """A label, title or line part that shows every character of ``value``."""
    return Text(str(value))


def cell(value: object) -> Text:
    """A one-line DataTable cell as the table draws a plain string (cut at its first
    line, cropped rather than wrapped), but never read as markup."""
    text = str(value)
    cut = text.find("\n")
    if cut not in (-1, len(text) - 1):
        text = text[:cut]
    return Text(text, no_wrap=True, end="")
