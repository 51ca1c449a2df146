"""A tree label that keeps its count when the pane is narrow.

An agent's or a table's label is a name and a count ("research-agent  18
records"). Cropped at the pane's edge, the count goes first ("18 recor" at 80
columns), and the count is what the operator reads the line for. Here the
name gives up its end instead, marked with an ellipsis.
"""

from __future__ import annotations

from rich.text import Text

__all__ = ["fit_label"]

#: The fewest characters of a name kept before the count is cropped instead.
MIN_NAME = 4
_GAP = "  "


def fit_label(label: Text, room: int, *, start: int = 0) -> Text:
    """``label`` (name, two spaces, count) within ``room`` cells: the name, from
    ``start`` (after an icon) to the gap, shortened with "…" as far as needed;
    unchanged when it fits, has no gap, or the name cannot give enough."""
    gap = label.plain.find(_GAP, start)
    over = label.cell_len - room
    if over <= 0 or gap < 0:
        return label
    keep = gap - over - 1  # the ellipsis takes a cell
    if keep - start < MIN_NAME:
        return label
    return Text.assemble(label[:keep], "…", label[gap:])
