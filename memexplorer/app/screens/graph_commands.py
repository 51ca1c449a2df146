"""The commands of the neighbourhood graph (graph_screen.py)."""

from memexplorer.app.command import Commands

__all__ = ["GRAPH_COMMANDS"]

GRAPH_COMMANDS = Commands.table("The neighbourhood graph", """
    close_graph     escape     screen.close               Close
        Back to where the graph was opened from
    graph_open      enter      screen.open_selected       Open
        Open the selected node (on +N more: draw more of its edges)
    graph_toggle    space,x    screen.toggle_selected     Expand
        Expand or collapse the selected node's neighbours
    graph_depth     d          screen.toggle_depth        Depth 1/2
        Draw one or two hops around the centre
    graph_centre    c          screen.recentre            Centre
        Draw the graph around the selected node
    graph_up        up,k       screen.select('up')        Up         [no footer, no palette]
        Select the box above
    graph_down      down,j     screen.select('down')      Down       [no footer, no palette]
        Select the box below
    graph_left      left,h     screen.select('left')      Left       [no footer, no palette]
        Select the box this one hangs from
    graph_right     right,l    screen.select('right')     Right      [no footer, no palette]
        Select the first box hanging from this one
    graph_next      tab        screen.select('next')      Next       [no footer, no palette]
        Select the next box
    graph_previous  shift+tab  screen.select('previous')  Previous   [no footer, no palette]
        Select the previous box
""")  # fmt: skip
