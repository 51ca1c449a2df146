"""The commands of find anywhere, an agent's history and the diff screen (issue 19),
part of the app's one command table (:data:`.app_commands.COMMANDS`)."""

from __future__ import annotations

from memexplorer.app.app_command import AppCommand

__all__ = ["HISTORY_COMMANDS"]

HISTORY_COMMANDS: tuple[AppCommand, ...] = (
    AppCommand("find", "ctrl+f", "app.find", "Find",
               "Find a text in every store and agent: facts, episodes, experiences and "
               "flat memories", "app", footer=False),
    # Find anywhere.
    AppCommand("find_stop", "escape", "screen.stop_or_close", "Stop / close",
               "Stop the search that is running; with none running, close", "find"),
    AppCommand("find_results", "ctrl+r", "screen.focus_results", "Results",
               "Move to the results (enter opens one, or shows more of a group)", "find",
               priority=True),
    # An agent's history and what changed.
    AppCommand("history", "h", "screen.history", "History",
               "The snapshots and backups of the agent under the cursor, newest first: "
               "what changed since each", "main", footer=False),
    AppCommand("history_diff", "d", "screen.diff", "What changed",
               "Compare the snapshot or backup under the cursor with the agent now (enter too)",
               "history"),
    AppCommand("history_snapshot", "s", "screen.snapshot", "Snapshot",
               "Keep a dated export of the agent now, to compare with later", "history"),
    AppCommand("history_close", "escape", "screen.close", "Close",
               "Back to the stores", "history"),
    AppCommand("diff_open", "o", "screen.open_record", "Open",
               "Open the node of the fact or episode under the cursor (as it is now)",
               "diff"),
    AppCommand("diff_close", "escape", "screen.close", "Close",
               "Back to where the diff was opened from", "diff"),
)  # fmt: skip
