"""The commands of the neighbourhood graph (graph_screen.py)."""

from memexplorer.app.command import Command, Commands

__all__ = ["GRAPH_COMMANDS"]

GRAPH_COMMANDS = Commands(
    "The neighbourhood graph",
    Command("close_graph", "escape", "screen.close", "Close",
            "Back to where the graph was opened from"),
    Command("graph_open", "enter", "screen.open_selected", "Open",
            "Open the selected node (on +N more: draw more of its edges)"),
    Command("graph_toggle", "space,x", "screen.toggle_selected", "Expand",
            "Expand or collapse the selected node's neighbours"),
    Command("graph_depth", "d", "screen.toggle_depth", "Depth 1/2",
            "Draw one or two hops around the centre"),
    Command("graph_centre", "c", "screen.recentre", "Centre",
            "Draw the graph around the selected node"),
    Command("graph_up", "up,k", "screen.select('up')", "Up",
            "Select the box above", footer=False, palette=False),
    Command("graph_down", "down,j", "screen.select('down')", "Down",
            "Select the box below", footer=False, palette=False),
    Command("graph_left", "left,h", "screen.select('left')", "Left",
            "Select the box this one hangs from", footer=False, palette=False),
    Command("graph_right", "right,l", "screen.select('right')", "Right",
            "Select the first box hanging from this one", footer=False, palette=False),
    Command("graph_next", "tab", "screen.select('next')", "Next",
            "Select the next box", footer=False, palette=False),
    Command("graph_previous", "shift+tab", "screen.select('previous')", "Previous",
            "Select the previous box", footer=False, palette=False),
)  # fmt: skip
