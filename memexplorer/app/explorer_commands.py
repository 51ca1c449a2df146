"""The commands of every screen (the app's own) (explorer_app.py)."""

from memexplorer.app.command import Command, Commands

__all__ = ["APP_COMMANDS"]

APP_COMMANDS = Commands(
    "Everywhere",
    Command("help", "f1,question_mark", "app.help", "Help",
            "Show the keys of this screen"),
    Command("palette", "ctrl+p", "app.command_palette", "Commands",
            "Search every command", footer=False, palette=False),
    Command("back", "alt+left,backspace", "app.back", "Back",
            "Go back to the previous node, like a browser", footer=False),
    Command("forward", "alt+right", "app.forward", "Forward",
            "Go forward again after going back", footer=False),
    Command("quit", "ctrl+q", "app.quit", "Quit",
            "Leave memexplorer"),
    Command("reload_changed", "R", "app.reload_changed", "Reload changed",
            "Reopen the stores that changed on disk: new counts, the open table at its page",
            rank=11),
    Command("find", "ctrl+f", "app.find", "Find",
            "Find a text in every store and agent: facts, episodes, experiences and flat "
            "memories", footer=False),
)  # fmt: skip
