"""The commands of the stores and the node table (main_screen.py)."""

from memexplorer.app.command import Commands

__all__ = ["MAIN_COMMANDS"]

MAIN_COMMANDS = Commands.table("Stores and tables", """
    reload         ctrl+r             screen.reload               Reload
        Look for stores again and reload their counts
    focus_tree     t                  screen.focus_on('#stores')  Stores           [no footer]
        Move to the stores and agents
    narrow_tree    less_than_sign     screen.resize_tree(-4)      Narrower stores  [no footer]
        Give the table more room: the stores pane 4 columns narrower
    widen_tree     greater_than_sign  screen.resize_tree(4)       Wider stores     [no footer]
        Give the stores pane 4 more columns, for long store names
    focus_table    r                  screen.focus_table          Rows             [no footer]
        Move to the rows of the open table
    filter         slash              screen.filter               Filter
        Show only rows whose text contains some words
    sort           s                  screen.sort                 Sort
        Sort by the column under the cursor (again: reverse)
    next_page      n,pagedown         screen.next_page            Next page        [no footer]
        Show the next page of rows
    previous_page  p,pageup           screen.previous_page        Previous page    [no footer]
        Show the previous page of rows
    first_page     g                  screen.first_page           First page       [no footer]
        Jump to the first page
    last_page      G                  screen.last_page            Last page        [no footer]
        Jump to the last page
    open_row       o                  screen.open_row             Open
        Open the node of the row under the cursor
    view_value     v                  screen.view_value           Value
        Show the whole value of the cell under the cursor
    copy_row       y                  screen.copy_row             Copy row         [no footer]
        Copy the row under the cursor to the clipboard, as JSON
    cancel         escape             screen.cancel               Cancel           [no footer]
        Stop a load that is running, or close the filter
    query          q                  screen.query                Query            [rank 1]
        Run retrieval for the agent under the cursor, or the open table's agent
    graph_row      m                  screen.graph_row            Graph            [rank 3]
        Draw the neighbourhood of the row under the cursor
    chains         c                  screen.chains               Chains           [rank 2]
        Temporal chains of the agent under the cursor, or of the open table's agent
    clean_row      delete             screen.clean_row            Clean            [rank 5]
        Preview, then delete (after a backup) the node under the cursor; on a flat store in the
        tree, its sessions by glob
    clean_filter   shift+delete       screen.clean_filter         Clean filtered   [no footer]
        Preview, then delete (after a backup) every row the filter shows
    undo_clean     u                  screen.undo_clean           Undo last clean  [no footer]
        Restore what the last clean deleted, while its notification is up
    correct_row    E                  screen.correct_row          Correct          [no footer]
        Store the right value of the fact under the cursor the agent's way: a preview of every
        write, then a backup (e exports)
    backups        b                  screen.backups              Backups          [rank 6]
        The backups under the home: restore any of them
    export         e                  screen.export               Export           [rank 7]
        Write the agent under the cursor to a file (JSON 1.1 or a raw store copy)
    import         i                  screen.import_file          Import           [rank 8]
        Preview a file's rows, then bring them into the agent under the cursor
    audit          a                  screen.audit                Audit            [rank 9]
        Find the credentials stored under the open folder; redact them after a backup
    console        colon              screen.console              Console          [rank 4]
        Run your own Cypher (or SQL) against the store under the cursor, read-only
    writing        w                  screen.toggle_writing       Writing          [rank 10]
        Switch the store under the cursor to writing (asks first), or back to read-only
    history        h                  screen.history              History          [no footer]
        The snapshots and backups of the agent under the cursor, newest first: what changed since
        each
    duplicates     d                  screen.duplicates           Duplicates       [no footer]
        Groups of near-identical facts of the agent under the cursor; merge one the agent's way
""")  # fmt: skip
