"""The commands of temporal chains (chain_screen.py)."""

from memexplorer.app.command import Command, Commands

__all__ = ["CHAIN_COMMANDS"]

CHAIN_COMMANDS = Commands(
    "Temporal chains",
    Command("close_chains", "escape", "screen.close", "Close",
            "Back to where the chains were opened from"),
    Command("open_step", "o", "screen.open_step", "Open",
            "Open the fact of the timeline step under the cursor (enter too)"),
    Command("current_step", "c", "screen.current_step", "Current",
            "Move to the chain's current value"),
    Command("view_step", "v", "screen.view_step", "Value",
            "Show the whole content of the step under the cursor"),
    Command("focus_chains", "l", "screen.focus_chains", "Chains",
            "Move to the list of chains", footer=False),
    Command("focus_timeline", "t", "screen.focus_timeline", "Timeline",
            "Move to the timeline of the chosen chain", footer=False),
)  # fmt: skip
