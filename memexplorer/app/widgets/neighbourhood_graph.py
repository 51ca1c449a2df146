"""The neighbourhood drawing with a selection that moves between its boxes."""

from __future__ import annotations

import zlib
from dataclasses import dataclass

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.containers import ScrollableContainer
from textual.geometry import Region
from textual.widgets import Static

from memexplorer.app.graph_drawing import BOX_HEIGHT, Box, Drawing, draw
from memexplorer.app.widgets.widget_message import WidgetMessage
from memexplorer.operator.neighbourhood import Neighbourhood

#: Named ANSI colours: they follow the terminal's and the theme's palette.
PALETTE = ("cyan", "magenta", "green", "yellow", "blue", "red", "bright_cyan", "bright_magenta")


def table_style(table: str) -> str:
    """The same table gets the same colour in every drawing and every run."""
    return PALETTE[zlib.crc32(table.encode()) % len(PALETTE)]


class NeighbourhoodGraph(ScrollableContainer, can_focus=False):
    """Boxes for nodes, lines for edges; the screen's keys move the selection."""

    HELP = (
        "Each box is a node, coloured by its table; `↺` boxes are nodes drawn elsewhere "
        "in the picture, `+N more` boxes count the edges not drawn. Edge labels give the "
        "rel type, its direction and its weight."
    )
    DEFAULT_CSS = """
    NeighbourhoodGraph { height: 1fr; scrollbar-size: 1 1; }
    NeighbourhoodGraph > Static { width: auto; height: auto; padding: 0 1; }
    """

    #: The neighbourhood drawn, its drawing and the index of the selected box.
    hood: Neighbourhood | None = None
    drawing: Drawing | None = None
    selected = 0

    @dataclass
    class Highlighted(WidgetMessage["NeighbourhoodGraph"]):
        """The selection moved onto another box."""

        box: Box

    def compose(self) -> ComposeResult:
        yield Static(id="drawing")

    @property
    def selected_box(self) -> Box | None:
        return self.drawing.boxes[self.selected] if self.drawing else None

    def show(self, hood: Neighbourhood, keep: Box | None = None) -> None:
        """Draw ``hood``; the selection stays on the box like ``keep`` if one is drawn,
        else on that box's node, else on the centre."""
        self.hood = hood
        width = max(self.size.width - 2, 60) if self.size.width else 118
        self.drawing = draw(hood, width)
        box = None
        if keep is not None:
            box = self.drawing.find(keep.node, keep.kind) or self.drawing.find(keep.node)
        self._select(box.index if box else 0)

    def move(self, direction: str) -> None:
        if self.drawing is not None:
            self._select(self.drawing.step(self.selected, direction))

    def _select(self, index: int) -> None:
        assert self.drawing is not None
        self.selected = index
        self.query_one("#drawing", Static).update(self.render_drawing())
        box = self.drawing.boxes[index]
        region = Region(box.x, box.y, box.width + 2, BOX_HEIGHT)
        self.call_after_refresh(self.scroll_to_region, region, animate=False, center=True)
        self.post_message(self.Highlighted(self, box))

    def render_drawing(self) -> Text:
        """The drawing's text with colours: boxes by table, the selection reversed."""
        assert self.drawing is not None
        lines = [Text(line) for line in self.drawing.lines]
        for row, start, end in self.drawing.labels:
            lines[row].stylize("italic", start, end)
        for box in self.drawing.boxes:
            style = "dim italic" if box.kind == "more" else table_style(box.table)
            if box.kind == "ref":
                style += " dim"
            if box.index == self.selected:
                style += " reverse bold"
            for r in range(BOX_HEIGHT):
                lines[box.y + r].stylize(style, box.x, box.x + box.width)
        return Text("\n").join(lines)

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self.query_one("#drawing", Static))
        if self.drawing is None or offset is None:
            return
        box = self.drawing.at(offset.y, offset.x)
        if box is not None:
            self._select(box.index)
