"""The commands of the query box (query_screen.py)."""

from memexplorer.app.command import Commands

__all__ = ["QUERY_COMMANDS"]

QUERY_COMMANDS = Commands.table("The query box", """
    close_query      escape                screen.close                 Close
        Back to the stores
    focus_query      slash                 screen.focus_on('#query')    Query
        Type a new query (enter runs it)
    focus_history    h                     screen.focus_on('#history')  History         [no footer]
        Move to the earlier queries (enter runs one)
    focus_results    r                     screen.focus_on('#results')  Results         [no footer]
        Move to the facts returned
    focus_context    x                     screen.focus_on('#context')  Context text    [no footer]
        Move to the LLM context text, to select part of it
    open_result      o                     screen.open_result           Open
        Open the node of the fact under the cursor
    toggle_order     t                     screen.toggle_order          Time order
        Show the LLM context in chronological order, or by confidence
    copy_context     c                     screen.copy_context          Copy
        Copy the LLM context text to the clipboard
    more_nodes       plus                  screen.more_nodes            More nodes
        Raise max_nodes (1, 5, 10, 20, 30, 50, 100, 200) and run again
    switch_profile   p                     screen.switch_profile        Profile
        Switch whose retrieval runs: library, amplihack-rs, ranked (kept per store)
    why_not          w                     screen.why_not               Why (not)?
        Walk the fact under the cursor through every step of the agent's retrieval
    focus_missed     m                     screen.focus_on('#missed')   Missed          [no footer]
        Move to the facts ranked finds and the agent's retrieval left out
    fewer_nodes      minus                 screen.fewer_nodes           Fewer nodes     [no footer]
        Lower max_nodes and run again
    raise_threshold  right_square_bracket  screen.raise_threshold       Threshold up    [no footer]
        Raise the SIMILAR_TO weight threshold by 0.05 and run again
    lower_threshold  left_square_bracket   screen.lower_threshold       Threshold down  [no footer]
        Lower the SIMILAR_TO weight threshold by 0.05 and run again
""")  # fmt: skip
