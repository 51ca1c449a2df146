"""The commands of one node (node_detail_screen.py)."""

from memexplorer.app.command import Command, Commands

__all__ = ["NODE_COMMANDS"]

NODE_COMMANDS = Commands(
    "A node",
    Command("close_node", "escape", "screen.close", "Close",
            "Back to the table"),
    Command("open_edge", "enter", "screen.open_edge", "Follow",
            "Open the neighbour at the other end of the edge", palette=False),
    Command("view_property", "v", "screen.view_property", "Value",
            "Show the whole value of the property under the cursor"),
    Command("copy_properties", "y", "screen.copy_properties", "Copy",
            "Copy every property of this node to the clipboard, as JSON", footer=False),
    Command("graph_node", "g", "screen.graph", "Graph",
            "Draw this node's neighbourhood, one or two hops"),
    Command("node_chain", "c", "screen.chain", "Chain",
            "This fact's temporal chain as a timeline, among the agent's chains"),
    Command("correct_node", "e", "screen.correct", "Correct",
            "Store the right value of this fact the agent's way: it supersedes the old one where "
            "the agent's code would (a preview first, then a backup)"),
)  # fmt: skip
