"""The commands of the query box (query_screen.py)."""

from memexplorer.app.command import Command, Commands

__all__ = ["QUERY_COMMANDS"]

QUERY_COMMANDS = Commands(
    "The query box",
    Command("close_query", "escape", "screen.close", "Close",
            "Back to the stores"),
    Command("focus_query", "slash", "screen.focus_query", "Query",
            "Type a new query (enter runs it)"),
    Command("focus_history", "h", "screen.focus_history", "History",
            "Move to the earlier queries (enter runs one)", footer=False),
    Command("focus_results", "r", "screen.focus_results", "Results",
            "Move to the facts returned", footer=False),
    Command("focus_context", "x", "screen.focus_context", "Context text",
            "Move to the LLM context text, to select part of it", footer=False),
    Command("open_result", "o", "screen.open_result", "Open",
            "Open the node of the fact under the cursor"),
    Command("toggle_order", "t", "screen.toggle_order", "Time order",
            "Show the LLM context in chronological order, or by confidence"),
    Command("copy_context", "c", "screen.copy_context", "Copy",
            "Copy the LLM context text to the clipboard"),
    Command("more_nodes", "plus", "screen.more_nodes", "More nodes",
            "Raise max_nodes (1, 5, 10, 20, 30, 50, 100, 200) and run again"),
    Command("switch_profile", "p", "screen.switch_profile", "Profile",
            "Switch whose retrieval runs: library, amplihack-rs, ranked (kept per store)"),
    Command("why_not", "w", "screen.why_not", "Why (not)?",
            "Walk the fact under the cursor through every step of the agent's retrieval"),
    Command("focus_missed", "m", "screen.focus_missed", "Missed",
            "Move to the facts ranked finds and the agent's retrieval left out", footer=False),
    Command("fewer_nodes", "minus", "screen.fewer_nodes", "Fewer nodes",
            "Lower max_nodes and run again", footer=False),
    Command("raise_threshold", "right_square_bracket", "screen.raise_threshold", "Threshold up",
            "Raise the SIMILAR_TO weight threshold by 0.05 and run again", footer=False),
    Command("lower_threshold", "left_square_bracket", "screen.lower_threshold", "Threshold down",
            "Lower the SIMILAR_TO weight threshold by 0.05 and run again", footer=False),
)  # fmt: skip
