"""Every command of the app, defined once.

A command's key binding (with an id, so users can remap it through
``App.set_keymap``), its footer visibility, its command-palette entry and its
line on the help screen all come from the one :class:`AppCommand` here.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.binding import Binding

__all__ = ["COMMANDS", "AppCommand", "bindings_for", "commands_for"]


@dataclass(frozen=True)
class AppCommand:
    id: str
    key: str
    action: str
    title: str
    help: str
    scope: str
    footer: bool = True
    palette: bool = True
    #: Before the focused widget's own keys (an editor would take ctrl+up itself).
    priority: bool = False
    #: Place in the footer, lowest first, so the keys that matter most show even
    #: when a narrow window cuts the footer short.
    rank: int = 100

    def binding(self) -> Binding:
        return Binding(
            self.key, self.action, self.title, show=self.footer, id=self.id, priority=self.priority
        )


COMMANDS: tuple[AppCommand, ...] = (
    # The whole app.
    AppCommand("help", "f1,question_mark", "app.help", "Help", "Show the keys of this screen",
               "app"),
    AppCommand("palette", "ctrl+p", "app.command_palette", "Commands",
               "Search every command", "app", footer=False, palette=False),
    AppCommand("back", "alt+left,backspace", "app.back", "Back",
               "Go back to the previous node, like a browser", "app", footer=False),
    AppCommand("forward", "alt+right", "app.forward", "Forward",
               "Go forward again after going back", "app", footer=False),
    AppCommand("quit", "ctrl+q", "app.quit", "Quit", "Leave memexplorer", "app"),
    AppCommand("find", "ctrl+f", "app.find", "Find",
               "Find a text in every store and agent: facts, episodes, experiences and "
               "flat memories", "app", footer=False),
    AppCommand("reload_changed", "R", "app.reload_changed", "Reload changed",
               "Reopen the stores that changed on disk: new counts, the open table at "
               "its page", "app", rank=11),
    # The stores and the node table.
    AppCommand("reload", "ctrl+r", "screen.reload", "Reload",
               "Look for stores again and reload their counts", "main"),
    AppCommand("focus_tree", "t", "screen.focus_tree", "Stores",
               "Move to the stores and agents", "main", footer=False),
    AppCommand("narrow_tree", "less_than_sign", "screen.resize_tree(-4)", "Narrower stores",
               "Give the table more room: the stores pane 4 columns narrower", "main",
               footer=False),
    AppCommand("widen_tree", "greater_than_sign", "screen.resize_tree(4)", "Wider stores",
               "Give the stores pane 4 more columns, for long store names", "main",
               footer=False),
    AppCommand("focus_table", "r", "screen.focus_table", "Rows",
               "Move to the rows of the open table", "main", footer=False),
    AppCommand("filter", "slash", "screen.filter", "Filter",
               "Show only rows whose text contains some words", "main"),
    AppCommand("sort", "s", "screen.sort", "Sort",
               "Sort by the column under the cursor (again: reverse)", "main"),
    AppCommand("next_page", "n,pagedown", "screen.next_page", "Next page",
               "Show the next page of rows", "main", footer=False),
    AppCommand("previous_page", "p,pageup", "screen.previous_page", "Previous page",
               "Show the previous page of rows", "main", footer=False),
    AppCommand("first_page", "g", "screen.first_page", "First page",
               "Jump to the first page", "main", footer=False),
    AppCommand("last_page", "G", "screen.last_page", "Last page",
               "Jump to the last page", "main", footer=False),
    AppCommand("open_row", "o", "screen.open_row", "Open",
               "Open the node of the row under the cursor", "main"),
    AppCommand("view_value", "v", "screen.view_value", "Value",
               "Show the whole value of the cell under the cursor", "main"),
    AppCommand("copy_row", "y", "screen.copy_row", "Copy row",
               "Copy the row under the cursor to the clipboard, as JSON", "main", footer=False),
    AppCommand("cancel", "escape", "screen.cancel", "Cancel",
               "Stop a load that is running, or close the filter", "main", footer=False),
    AppCommand("query", "q", "screen.query", "Query",
               "Run retrieval for the agent under the cursor, or the open table's agent",
               "main", rank=1),
    AppCommand("graph_row", "m", "screen.graph_row", "Graph",
               "Draw the neighbourhood of the row under the cursor", "main", rank=3),
    AppCommand("chains", "c", "screen.chains", "Chains",
               "Temporal chains of the agent under the cursor, or of the open table's agent",
               "main", rank=2),
    AppCommand("clean_row", "delete", "screen.clean_row", "Clean",
               "Preview, then delete (after a backup) the node under the cursor; on a flat "
               "store in the tree, its sessions by glob", "main", rank=5),
    AppCommand("clean_filter", "shift+delete", "screen.clean_filter", "Clean filtered",
               "Preview, then delete (after a backup) every row the filter shows", "main",
               footer=False),
    AppCommand("undo_clean", "u", "screen.undo_clean", "Undo last clean",
               "Restore what the last clean deleted, while its notification is up", "main",
               footer=False),
    AppCommand("backups", "b", "screen.backups", "Backups",
               "The backups under the home: restore any of them", "main", rank=6),
    AppCommand("export", "e", "screen.export", "Export",
               "Write the agent under the cursor to a file (JSON 1.1 or a raw store copy)",
               "main", rank=7),
    AppCommand("import", "i", "screen.import_file", "Import",
               "Preview a file's rows, then bring them into the agent under the cursor",
               "main", rank=8),
    AppCommand("audit", "a", "screen.audit", "Audit",
               "Find the credentials stored under the open folder; redact them after a "
               "backup", "main", rank=9),
    # The credential audit.
    AppCommand("audit_open", "enter,o", "screen.open_finding", "Open",
               "Open the node (or SQLite row) of the finding under the cursor", "audit"),
    AppCommand("audit_toggle", "space", "screen.toggle_selected", "Select",
               "Select the finding under the cursor, or unselect it", "audit"),
    AppCommand("audit_all", "a", "screen.select_all", "All/none",
               "Select every finding (again: none)", "audit"),
    AppCommand("audit_redact", "d,ctrl+s", "screen.redact", "Redact",
               "Replace the selected secrets with [REDACTED], after a confirm and a backup",
               "audit"),
    AppCommand("audit_undo", "u", "screen.undo", "Undo",
               "Restore what the last redaction changed, while its notification is up",
               "audit"),
    AppCommand("audit_sort", "s", "screen.sort", "Sort",
               "Sort by store, kind, agent or table, in turn", "audit"),
    AppCommand("audit_again", "ctrl+r", "screen.audit_again", "Audit again",
               "Scan the stores again", "audit", footer=False),
    AppCommand("audit_close", "escape", "screen.close", "Close",
               "Back to the stores", "audit"),
    # A redaction's confirm.
    AppCommand("redact_confirm", "y", "screen.confirm", "Redact",
               "Back up, then redact the values listed", "redact"),
    AppCommand("redact_cancel", "escape", "screen.cancel", "Cancel",
               "Close without changing anything", "redact"),
    # Export and import.
    AppCommand("export_start", "ctrl+s", "screen.start", "Export",
               "Write the file (whole, or not at all)", "export", priority=True),
    AppCommand("export_cancel", "escape", "screen.cancel", "Cancel",
               "Close without writing anything", "export"),
    AppCommand("import_preview", "ctrl+o", "screen.preview", "Preview",
               "Read the file and show what it holds and what will change", "import",
               priority=True),
    AppCommand("import_merge", "ctrl+t", "screen.toggle_merge", "Replace/merge",
               "Replace the agent's memory, or merge (ids already there are skipped)",
               "import", priority=True),
    AppCommand("import_confirm", "ctrl+s", "screen.confirm", "Import",
               "Import what the preview shows", "import", priority=True),
    AppCommand("import_cancel", "escape", "screen.cancel", "Cancel",
               "Close without changing anything", "import"),
    # A clean's preview.
    AppCommand("clean_confirm", "y", "screen.confirm", "Delete",
               "Back up, then delete what the preview lists", "clean"),
    AppCommand("clean_cancel", "escape", "screen.cancel", "Cancel",
               "Close without changing anything", "clean"),
    # The backups.
    AppCommand("backup_restore", "r", "screen.restore", "Restore",
               "Write the backup under the cursor back into its store (after a confirm; "
               "enter too)", "backups"),
    AppCommand("close_backups", "escape", "screen.close", "Close",
               "Back to the stores", "backups"),
    # One node.
    AppCommand("close_node", "escape", "screen.close", "Close",
               "Back to the table", "node"),
    AppCommand("open_edge", "enter", "screen.open_edge", "Follow",
               "Open the neighbour at the other end of the edge", "node", palette=False),
    AppCommand("view_property", "v", "screen.view_property", "Value",
               "Show the whole value of the property under the cursor", "node"),
    AppCommand("copy_properties", "y", "screen.copy_properties", "Copy",
               "Copy every property of this node to the clipboard, as JSON", "node",
               footer=False),
    AppCommand("graph_node", "g", "screen.graph", "Graph",
               "Draw this node's neighbourhood, one or two hops", "node"),
    AppCommand("node_chain", "c", "screen.chain", "Chain",
               "This fact's temporal chain as a timeline, among the agent's chains", "node"),
    # The query box.
    AppCommand("close_query", "escape", "screen.close", "Close",
               "Back to the stores", "query"),
    AppCommand("focus_query", "slash", "screen.focus_query", "Query",
               "Type a new query (enter runs it)", "query"),
    AppCommand("focus_history", "h", "screen.focus_history", "History",
               "Move to the earlier queries (enter runs one)", "query", footer=False),
    AppCommand("focus_results", "r", "screen.focus_results", "Results",
               "Move to the facts returned", "query", footer=False),
    AppCommand("focus_context", "x", "screen.focus_context", "Context text",
               "Move to the LLM context text, to select part of it", "query", footer=False),
    AppCommand("open_result", "o", "screen.open_result", "Open",
               "Open the node of the fact under the cursor", "query"),
    AppCommand("toggle_order", "t", "screen.toggle_order", "Time order",
               "Show the LLM context in chronological order, or by confidence", "query"),
    AppCommand("copy_context", "c", "screen.copy_context", "Copy",
               "Copy the LLM context text to the clipboard", "query"),
    AppCommand("more_nodes", "plus", "screen.more_nodes", "More nodes",
               "Raise max_nodes (1, 5, 10, 20, 30, 50, 100, 200) and run again", "query"),
    AppCommand("switch_profile", "p", "screen.switch_profile", "Profile",
               "Switch whose retrieval runs: library, amplihack-rs, ranked (kept per store)",
               "query"),
    AppCommand("why_not", "w", "screen.why_not", "Why (not)?",
               "Walk the fact under the cursor through every step of the agent's retrieval",
               "query"),
    AppCommand("focus_missed", "m", "screen.focus_missed", "Missed",
               "Move to the facts ranked finds and the agent's retrieval left out", "query",
               footer=False),
    AppCommand("fewer_nodes", "minus", "screen.fewer_nodes", "Fewer nodes",
               "Lower max_nodes and run again", "query", footer=False),
    AppCommand("raise_threshold", "right_square_bracket", "screen.raise_threshold",
               "Threshold up", "Raise the SIMILAR_TO weight threshold by 0.05 and run again",
               "query", footer=False),
    AppCommand("lower_threshold", "left_square_bracket", "screen.lower_threshold",
               "Threshold down", "Lower the SIMILAR_TO weight threshold by 0.05 and run again",
               "query", footer=False),
    # The neighbourhood graph.
    AppCommand("close_graph", "escape", "screen.close", "Close",
               "Back to where the graph was opened from", "graph"),
    AppCommand("graph_open", "enter", "screen.open_selected", "Open",
               "Open the selected node (on +N more: draw more of its edges)", "graph"),
    AppCommand("graph_toggle", "space,x", "screen.toggle_selected", "Expand",
               "Expand or collapse the selected node's neighbours", "graph"),
    AppCommand("graph_depth", "d", "screen.toggle_depth", "Depth 1/2",
               "Draw one or two hops around the centre", "graph"),
    AppCommand("graph_centre", "c", "screen.recentre", "Centre",
               "Draw the graph around the selected node", "graph"),
    AppCommand("graph_up", "up,k", "screen.select('up')", "Up",
               "Select the box above", "graph", footer=False, palette=False),
    AppCommand("graph_down", "down,j", "screen.select('down')", "Down",
               "Select the box below", "graph", footer=False, palette=False),
    AppCommand("graph_left", "left,h", "screen.select('left')", "Left",
               "Select the box this one hangs from", "graph", footer=False, palette=False),
    AppCommand("graph_right", "right,l", "screen.select('right')", "Right",
               "Select the first box hanging from this one", "graph", footer=False,
               palette=False),
    AppCommand("graph_next", "tab", "screen.select('next')", "Next",
               "Select the next box", "graph", footer=False, palette=False),
    AppCommand("graph_previous", "shift+tab", "screen.select('previous')", "Previous",
               "Select the previous box", "graph", footer=False, palette=False),
    # Temporal chains.
    AppCommand("close_chains", "escape", "screen.close", "Close",
               "Back to where the chains were opened from", "chain"),
    AppCommand("open_step", "o", "screen.open_step", "Open",
               "Open the fact of the timeline step under the cursor (enter too)", "chain"),
    AppCommand("current_step", "c", "screen.current_step", "Current",
               "Move to the chain's current value", "chain"),
    AppCommand("view_step", "v", "screen.view_step", "Value",
               "Show the whole content of the step under the cursor", "chain"),
    AppCommand("focus_chains", "l", "screen.focus_chains", "Chains",
               "Move to the list of chains", "chain", footer=False),
    AppCommand("focus_timeline", "t", "screen.focus_timeline", "Timeline",
               "Move to the timeline of the chosen chain", "chain", footer=False),
    # The raw query console.
    AppCommand("console", "colon", "screen.console", "Console",
               "Run your own Cypher (or SQL) against the store under the cursor, read-only",
               "main", rank=4),
    AppCommand("console_run", "ctrl+r,f5", "screen.run", "Run", "Run the query", "console",
               priority=True),
    AppCommand("console_stop", "escape", "screen.stop", "Stop / close",
               "Stop the running query; with none running, close the console", "console"),
    AppCommand("console_previous", "ctrl+up", "screen.previous_query", "Previous query",
               "Put the previous query of this session in the editor", "console",
               footer=False, priority=True),
    AppCommand("console_next", "ctrl+down", "screen.next_query", "Next query",
               "Put the next query of this session in the editor", "console", footer=False,
               priority=True),
    AppCommand("console_value", "f4", "screen.view_cell", "Value",
               "Show the whole value of the result cell under the cursor", "console"),
    AppCommand("console_editor", "ctrl+e", "screen.focus_editor", "Editor",
               "Move to the query editor", "console", footer=False),
    AppCommand("console_writing", "f6", "screen.toggle_writing", "Writing",
               "Switch this store to writing (asks first), or back to read-only", "console",
               priority=True),
    AppCommand("console_undo", "f8", "screen.undo_write", "Undo write",
               "Put back the copy of the store saved before the last write, while its "
               "notification is up", "console", footer=False, priority=True),
    AppCommand("console_history", "f3", "screen.focus_history", "History",
               "Move to this store's earlier queries (narrowed by the editor's words)",
               "console", footer=False),
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
    # Writing mode.
    AppCommand("writing", "w", "screen.toggle_writing", "Writing",
               "Switch the store under the cursor to writing (asks first), or back to "
               "read-only", "main", rank=10),
    AppCommand("confirm_yes", "y", "screen.confirm", "Confirm", "Go ahead with the change",
               "confirm"),
    AppCommand("confirm_no", "escape", "screen.cancel", "Cancel",
               "Close without changing anything", "confirm"),
)  # fmt: skip


def commands_for(scope: str) -> list[AppCommand]:
    return [command for command in COMMANDS if command.scope == scope]


def bindings_for(scope: str) -> list[Binding]:
    """The scope's bindings in footer order (its most important keys first)."""
    ranked = sorted(commands_for(scope), key=lambda command: command.rank)
    return [command.binding() for command in ranked]
