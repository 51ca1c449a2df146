"""The stores screen's operator actions: clean (with undo) and backups.

A mixin for :class:`MainScreen`, so that screen stays about browsing. Every action previews
in a modal first; the store stays read-only in the app except while the engine writes.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from textual import work
from textual.message import Message
from textual.widgets import Input
from textual.worker import Worker

from memexplorer.app.screens.undo_offer import UndoOffer
from memexplorer.app.session_mode import write_action
from memexplorer.app.widgets.node_table import NodeTable, TableSource
from memexplorer.app.widgets.stores_tree import AgentItem, StoreItem, StoresTree, TableItem
from memexplorer.app.widgets.worker_errors import report_failed_worker
from memexplorer.operator.catalog import StoreEntry
from memexplorer.operator.wording import restored_summary, rows_and_edges, with_article

if TYPE_CHECKING:
    from memexplorer.operator.backup_records import RestoreResult
    from memexplorer.operator.clean import CleanResult
    from memexplorer.operator.clean_selection import Selection


@dataclass
class FilterCollected(Message):
    """The keys of every row the table's filter shows (all pages)."""

    source: TableSource
    text: str
    keys: list[str]


@dataclass
class Restored(Message):
    result: RestoreResult


class OperatorActions(UndoOffer["BackupRecord"]):
    """Clean, undo, backups, export and import, from the stores and the node table."""

    # -- what the actions work on -------------------------------------------------------
    def _entry_for(self, path: Path) -> StoreEntry | None:
        return next((e for e in self.query_one(StoresTree).entries if e.path == path), None)

    def _home(self, store: Path | None) -> Path:
        return self.session.home(store)

    def _cursor_key(self) -> tuple[TableSource, str] | None:
        table = self.query_one(NodeTable)
        source, page, cell = table.source, table.page, table.cursor_value()
        if source is None or page is None or cell is None:
            return None
        info = source.table
        if info.kind != "node" or info.primary_key is None:
            return None
        from textual_fastdatatable import DataTable

        row = table.query_one("#grid", DataTable).cursor_row
        return source, str(page.data.column(info.primary_key)[row].as_py())

    def _open_clean(self, entry: StoreEntry, selection: Selection, what: str) -> None:
        from memexplorer.app.screens.clean_modal import CleanModal
        from memexplorer.operator.clean import clean_target

        target = clean_target(entry.path)
        modal = CleanModal(self.session, target, selection, self._home(entry.path), what,
                           sessions=entry.kind == "flat")  # fmt: skip
        self.app.push_screen(modal, self._cleaned)

    # -- clean ---------------------------------------------------------------------------
    @write_action("Clean")
    def action_clean_row(self) -> None:
        """Clean the node under the table's cursor (or, on a flat store in the tree,
        its sessions by glob)."""
        from memexplorer.operator.clean_selection import Selection

        tree = self.query_one(StoresTree)
        item = tree.cursor_node.data if tree.cursor_node is not None else None
        flat = isinstance(item, StoreItem | AgentItem | TableItem) and item.entry.kind == "flat"
        if tree.has_focus and flat:
            self.action_clean_sessions()
            return
        found = self._cursor_key()
        if found is None:
            self.notify("Open a node table and put the cursor on a row first",
                        severity="warning")  # fmt: skip
            return
        source, key = found
        entry = self._entry_for(source.browser.path)
        if entry is None:
            return
        if entry.kind == "flat":
            self.action_clean_sessions()
            return
        selection = Selection(agent=source.agent or None, table=source.table.name, ids=(key,))
        self._open_clean(entry, selection, f"Clean {source.table.name} {key} of "
                         f"{source.agent or '(no agent)'}")  # fmt: skip

    @write_action("Clean")
    def action_clean_filter(self) -> None:
        """Clean every row the table's filter shows (all pages, not just this one)."""
        table = self.query_one(NodeTable)
        source, text = table.source, table.page_query.text
        if source is None or not text:
            self.notify("Filter the table first (/), then shift+delete cleans what it shows",
                        severity="warning")  # fmt: skip
            return
        if source.table.kind != "node" or source.table.primary_key is None:
            self.notify(f"{source.table.name} rows are not nodes with a key", severity="warning")
            return
        self.collect_filtered(source, text)

    @work(thread=True, exclusive=True, group="clean-collect", exit_on_error=False)
    def collect_filtered(self, source: TableSource, text: str) -> None:
        keys = source.browser.matching_keys(source.table, source.agent, text)
        self.post_message(FilterCollected(source, text, keys))

    def on_filter_collected(self, message: FilterCollected) -> None:
        from memexplorer.operator.clean_selection import Selection

        entry = self._entry_for(message.source.browser.path)
        if entry is None or not message.keys:
            self.notify("The filter shows no rows: nothing to clean", severity="warning")
            return
        info = message.source.table
        selection = Selection(agent=message.source.agent or None, table=info.name,
                              ids=tuple(message.keys))  # fmt: skip
        what = f"Clean the {len(message.keys):,} {info.name} rows matching “{message.text}”"
        self._open_clean(entry, selection, what)

    def action_clean_sessions(self) -> None:
        """A flat store's sessions by glob: the one under the cursor, else the only one."""
        from memexplorer.app.screens.clean_modal import CleanModal
        from memexplorer.operator.clean import clean_target
        from memexplorer.operator.clean_selection import Selection

        tree = self.query_one(StoresTree)
        item = tree.cursor_node.data if tree.cursor_node is not None else None
        entry = getattr(item, "entry", None)
        source = self.query_one(NodeTable).source
        if (entry is None or entry.kind != "flat") and source is not None:
            entry = self._entry_for(source.browser.path)
        if entry is None or entry.kind != "flat":
            flats = [e for e in tree.entries if e.kind == "flat"]
            entry = flats[0] if len(flats) == 1 else None
        if entry is None:
            self.notify("Put the stores cursor on a flat store (memory.db) first",
                        severity="warning")  # fmt: skip
            return
        target = clean_target(entry.path)
        modal = CleanModal(self.session, target, Selection(pattern="*"), self._home(entry.path),
                           f"Clean sessions of {entry.path.name}", sessions=True)  # fmt: skip
        self.app.push_screen(modal, self._cleaned)

    def _cleaned(self, result: CleanResult | None) -> None:
        if result is None:
            return
        removed = result.preview
        self.reload_after_write()
        if result.backup is None:
            self.notify("Nothing matched, nothing was deleted")
            return
        self.offer_undo(
            result.backup,
            f"Deleted {rows_and_edges(removed.rows, removed.edge_count)}. "
            f"Press u to undo (backup {result.backup.path.name}).",
            "Cleaned",
        )  # fmt: skip

    # -- undo and restore ----------------------------------------------------------------
    @write_action("Undo")
    def action_undo_clean(self) -> None:
        """Restore the backup of the last clean, while its notification is up."""
        record = self.take_undo("cleans from Backups (b)")
        if record is not None:
            self.session.forget(record.store)
            self.restore(record.path)

    @work(thread=True, exclusive=True, group="restore", exit_on_error=False)
    def restore(self, backup: Path) -> None:
        from memexplorer.operator.backups import restore_backup

        self.post_message(Restored(restore_backup(backup)))

    def on_restored(self, message: Restored) -> None:
        result = message.result
        self.reload_after_write()
        summary = restored_summary(result.restored, result.already_there, result.store.name,
                                   result.whole_store, result.edges)  # fmt: skip
        self.notify(summary, title="Undone")

    def action_backups(self) -> None:
        from memexplorer.app.screens.backups_screen import BackupsScreen

        source = self.query_one(NodeTable).source
        home = self._home(source.browser.path if source is not None else None)
        self.app.push_screen(BackupsScreen(self.session, home), lambda _: self.reload_after_write())

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        report_failed_worker(event, self.session)

    # -- what the operator points at ---------------------------------------------------
    def _cursor_target(self) -> tuple[StoreEntry, str | None] | None:
        """What the operator points at: the tree's item when the tree has the keyboard
        (or no table is open), else the open table's store and agent. The agent is None
        on a store of several agents: the store itself is meant."""
        tree = self.query_one(StoresTree)
        item = tree.cursor_node.data if tree.cursor_node is not None else None
        source = self.query_one(NodeTable).source
        if isinstance(item, StoreItem | AgentItem | TableItem) and (
            tree.has_focus or source is None
        ):
            if isinstance(item, StoreItem):
                agents = list(item.entry.agents)
                return item.entry, agents[0] if len(agents) == 1 else None
            return item.entry, item.agent
        if source is not None:
            entry = self._entry_for(source.browser.path)
            return (entry, source.agent) if entry is not None else None
        return None

    def _agent_target(self, title: str, reason: str) -> tuple[StoreEntry, str] | None:
        """The hierarchical agent pointed at (see :meth:`_cursor_target`); otherwise say
        why not ("<store> is a <kind> store: <reason>") and return None."""
        target = self._cursor_target()
        if target is not None and target[0].error is not None:  # no kind to name
            entry, error = target[0], target[0].error
            self.notify(f"{entry.path.name} could not be read ({error.title}); enter on it "
                        "shows why", title=title, severity="warning")  # fmt: skip
            return None
        if target is not None and target[0].kind != "hierarchical":
            # Said first: choosing one of its agents would only lead here.
            entry, kind = target[0], with_article(target[0].kind)
            self.notify(f"{entry.path.name} is {kind} store: {reason}", title=title,
                        severity="warning")  # fmt: skip
            return None
        entry, agent = target if target is not None else (None, None)
        if entry is None or agent is None:
            self.notify("Choose an agent in the stores tree first", severity="warning")
            return None
        return entry, agent

    # -- after a write -------------------------------------------------------------------
    def reload_after_write(self) -> None:
        """Fresh counts in the tree and the open table, on its same filter and page."""
        table = self.query_one(NodeTable)
        source, query = table.source, table.page_query
        self.session.close_all()
        tree = self.query_one(StoresTree)
        # Our own write (clean, undo, restore) is no news from disk: every store is
        # re-read now, so none is announced as changed.
        self.session.wrote(entry.path for entry in tree.entries)
        tree.reload()
        if source is None:
            return
        browser = self.session.browser(source.browser.path)
        info = next((t for t in browser.tables(source.agent) if t.name == source.table.name),
                    source.table)  # fmt: skip
        table.source = TableSource(browser, source.agent, info)
        table.query_one("#filter", Input).value = query.text
        table.load(replace(query, offset=0))
