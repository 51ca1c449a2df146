"""The commands of temporal chains (chain_screen.py)."""

from memexplorer.app.command import Commands

__all__ = ["CHAIN_COMMANDS"]

CHAIN_COMMANDS = Commands.table("Temporal chains", """
    close_chains    escape  screen.close                  Close
        Back to where the chains were opened from
    open_step       o       screen.open_step              Open
        Open the fact of the timeline step under the cursor (enter too)
    current_step    c       screen.current_step           Current
        Move to the chain's current value
    view_step       v       screen.view_step              Value
        Show the whole content of the step under the cursor
    focus_chains    l       screen.focus_on('#chains')    Chains    [no footer]
        Move to the list of chains
    focus_timeline  t       screen.focus_on('#timeline')  Timeline  [no footer]
        Move to the timeline of the chosen chain
""")  # fmt: skip
