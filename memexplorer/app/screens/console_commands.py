"""The commands of the raw query console (console_screen.py)."""

from memexplorer.app.command import Command, Commands

__all__ = ["CONSOLE_COMMANDS"]

CONSOLE_COMMANDS = Commands(
    "The query console",
    Command("console_run", "ctrl+r,f5", "screen.run", "Run",
            "Run the query", priority=True),
    Command("console_stop", "escape", "screen.stop", "Stop / close",
            "Stop the running query; with none running, close the console"),
    Command("console_previous", "ctrl+up", "screen.previous_query", "Previous query",
            "Put the previous query of this session in the editor", footer=False, priority=True),
    Command("console_next", "ctrl+down", "screen.next_query", "Next query",
            "Put the next query of this session in the editor", footer=False, priority=True),
    Command("console_value", "f4", "screen.view_cell", "Value",
            "Show the whole value of the result cell under the cursor"),
    Command("console_editor", "ctrl+e", "screen.focus_editor", "Editor",
            "Move to the query editor", footer=False),
    Command("console_writing", "f6", "screen.toggle_writing", "Writing",
            "Switch this store to writing (asks first), or back to read-only", priority=True),
    Command("console_undo", "f8", "screen.undo_write", "Undo write",
            "Put back the copy of the store saved before the last write, while its notification "
            "is up", footer=False, priority=True),
    Command("console_history", "f3", "screen.focus_history", "History",
            "Move to this store's earlier queries (narrowed by the editor's words)", footer=False),
)  # fmt: skip
