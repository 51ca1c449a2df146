"""The commands of one node (node_detail_screen.py)."""

from memexplorer.app.command import Commands

__all__ = ["NODE_COMMANDS"]

NODE_COMMANDS = Commands.table("A node", """
    close_node       escape  screen.close            Close
        Back to the table
    open_edge        enter   screen.open_edge        Follow   [no palette]
        Open the neighbour at the other end of the edge
    view_property    v       screen.view_property    Value
        Show the whole value of the property under the cursor
    copy_properties  y       screen.copy_properties  Copy     [no footer]
        Copy every property of this node to the clipboard, as JSON
    graph_node       g       screen.graph            Graph
        Draw this node's neighbourhood, one or two hops
    node_chain       c       screen.chain            Chain
        This fact's temporal chain as a timeline, among the agent's chains
    correct_node     e       screen.correct          Correct
        Store the right value of this fact the agent's way: it supersedes the old one where the
        agent's code would (a preview first, then a backup)
""")  # fmt: skip
