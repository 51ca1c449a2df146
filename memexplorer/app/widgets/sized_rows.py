"""Fill a DataTable with rows and columns as wide as their widest cell, at once.

Why: a DataTable sizes its columns when it is next idle after rows arrive, and
its header line can stay drawn at the old widths until something else redraws
it. A modal that fills a table from a worker's answer showed, on a loaded
machine, rows at their new widths under a header at the old ones. Giving each
column its width when it is added leaves nothing to size later: the same
layout the table would reach, drawn right the first time.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.cells import cell_len
from textual.widgets import DataTable

from memexplorer.app.literal import cell

__all__ = ["fill_sized"]


def fill_sized(table: DataTable, labels: Sequence[str], rows: Sequence[Sequence[str]]) -> None:
    """Replace the table's columns and rows; each column as wide as its widest text,
    which is shown as it is (the rows are read from stores: literal.py)."""
    table.clear(columns=True)
    for number, label in enumerate(labels):
        width = max([cell_len(label), *(cell_len(row[number]) for row in rows)])
        table.add_column(label, width=width)
    for row in rows:
        table.add_row(*(cell(value) for value in row))
