"""The commands of every screen (the app's own) (explorer_app.py)."""

from memexplorer.app.command import Commands

__all__ = ["APP_COMMANDS"]

APP_COMMANDS = Commands.table("Everywhere", """
    help            f1,question_mark    app.help             Help
        Show the keys of this screen
    palette         ctrl+p              app.command_palette  Commands        [no footer, no palette]
        Search every command
    back            alt+left,backspace  app.back             Back            [no footer]
        Go back to the previous node, like a browser
    forward         alt+right           app.forward          Forward         [no footer]
        Go forward again after going back
    quit            ctrl+q              app.quit             Quit
        Leave memexplorer
    reload_changed  R                   app.reload_changed   Reload changed  [rank 11]
        Reopen the stores that changed on disk: new counts, the open table at its page
    find            ctrl+f              app.find             Find            [no footer]
        Find a text in every store and agent: facts, episodes, experiences and flat memories
""")  # fmt: skip
