"""The commands of the raw query console (console_screen.py)."""

from memexplorer.app.command import Commands

__all__ = ["CONSOLE_COMMANDS"]

CONSOLE_COMMANDS = Commands.table("The query console", """
    console_run       ctrl+r,f5  screen.run                   Run             [priority]
        Run the query
    console_stop      escape     screen.stop                  Stop / close
        Stop the running query; with none running, close the console
    console_previous  ctrl+up    screen.previous_query        Previous query  [no footer, priority]
        Put the previous query of this session in the editor
    console_next      ctrl+down  screen.next_query            Next query      [no footer, priority]
        Put the next query of this session in the editor
    console_value     f4         screen.view_cell             Value
        Show the whole value of the result cell under the cursor
    console_editor    ctrl+e     screen.focus_on('#editor')   Editor          [no footer]
        Move to the query editor
    console_select    ctrl+a     screen.select_query          Select all      [no footer, priority]
        Select the whole query in the editor: what you type next replaces it
    console_writing   f6         screen.toggle_writing        Writing         [priority]
        Switch this store to writing (asks first), or back to read-only
    console_undo      f8         screen.undo_write            Undo write      [no footer, priority]
        Put back the copy of the store saved before the last write, while its notification is up
    console_history   f3         screen.focus_on('#history')  History         [no footer]
        Move to this store's earlier queries (narrowed by the editor's words)
""")  # fmt: skip
