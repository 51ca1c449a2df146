"""The home screen: stores and agents on the left, the chosen table's rows on the right."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import Footer, Header
from textual_fastdatatable import DataTable

from memexplorer.app.clipboard import as_json
from memexplorer.app.operator_session import OperatorSession
from memexplorer.app.screens.correct_actions import CorrectRow
from memexplorer.app.screens.engine_offer_modal import EngineOfferModal, engine_offer
from memexplorer.app.screens.main_commands import MAIN_COMMANDS
from memexplorer.app.screens.transfer_actions import TransferActions
from memexplorer.app.screens.value_modal import ValueModal
from memexplorer.app.screens.writing_modal import WritingToggle
from memexplorer.app.widgets.node_ref import NodeRef
from memexplorer.app.widgets.node_table import NodeTable, TableSource
from memexplorer.app.widgets.stores_tree import StoresTree
from memexplorer.operator.catalog import StoreEntry
from memexplorer.operator.read_only_session import read_only_label
from memexplorer.storage.engine_cache import CachedEngine

#: The narrowest the stores pane and the table get when the split is moved.
TREE_MIN, TABLE_MIN = 16, 24


def _on_table(method: Callable[..., object], *args: int) -> Callable[[MainScreen], None]:
    """A screen action that calls the node table's ``method`` with ``args``."""

    def action(screen: MainScreen) -> None:
        method(screen.table, *args)

    return action


class MainScreen(CorrectRow, TransferActions, WritingToggle):
    """Browse every store under the folder the app was opened on."""

    HELP = (
        "Every memory store under the folder you opened: its kind, engine and storage "
        "version, its agents and their tables. Choose a table to page through its rows; "
        "open a row to see the node with its edges."
    )
    SCREEN_COMMANDS = MAIN_COMMANDS
    CSS_PATH = "main_screen.tcss"

    def __init__(self, session: OperatorSession, page_size: int) -> None:
        super().__init__(session)
        self.root = session.root
        self.page_size = page_size
        #: Stores whose missing release was announced (see announce_missing_engines).
        self._announced: set[Path] = set()

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal():
            yield StoresTree(self.session, id="stores")
            yield NodeTable(self.session, page_size=self.page_size, id="table")
        yield Footer()

    def on_mount(self) -> None:
        self.show_mode()
        self.query_one(StoresTree).focus()

    @property
    def table(self) -> NodeTable:
        return self.query_one(NodeTable)

    @on(StoresTree.TableChosen)
    def open_table(self, message: StoresTree.TableChosen) -> None:
        item = message.item
        browser = self.session.browser(item.entry.path)
        self.table.show(TableSource(browser, item.agent, item.table), focus=True)
        self.show_mode()

    @on(StoresTree.StoreChosen)
    def store_chosen(self, message: StoresTree.StoreChosen) -> None:
        entry = message.entry
        offer = engine_offer(entry)
        if offer is not None:
            self.app.push_screen(EngineOfferModal(entry.path, *offer), self.engine_added)
        elif entry.error is not None:
            self.session.show_error(entry.error)

    @on(StoresTree.StoresLoaded)
    def announce_missing_engines(self, message: StoresTree.StoresLoaded) -> None:
        """Say once per store (not on every reload) which release it needs, with the
        command; choosing the store offers to install it."""
        commands = {}
        for entry in message.entries:
            offer = engine_offer(entry)
            if offer is not None and entry.path not in self._announced:
                self._announced.add(entry.path)
                commands.setdefault(offer[1], []).append(entry.path.name)
        for command, names in commands.items():
            self.notify(
                f"{', '.join(names)}: to read it whole, run {command} "
                "(choose the store for the offer)",
                title="Another engine release wanted", severity="warning", timeout=12,
            )  # fmt: skip

    def engine_added(self, engine: CachedEngine | None) -> None:
        """A release installed from the offer: read every store again, with it."""
        if engine is None:
            return
        self.notify(f"{engine.name} installed; the stores it wrote are read with it now")
        self.action_reload()

    @on(NodeTable.RowOpened)
    def open_row(self, message: NodeTable.RowOpened) -> None:
        store = message.source.browser.path
        self.session.open_node(NodeRef(store, message.node_table, message.key))

    # -- commands ------------------------------------------------------------------------
    def action_reload(self) -> None:
        self.session.close_all()
        self.reload_stores(None)

    def reload_stores(self, paths: list[Path] | None) -> None:
        """After stores were closed (``None``: all of them): list them again with new
        counts, and reopen the open table on a fresh browser at the page it showed."""
        self.query_one(StoresTree).reload()
        source = self.table.source
        if source is not None and (paths is None or source.browser.path in paths):
            browser = self.session.browser(source.browser.path)
            self.table.source = TableSource(browser, source.agent, source.table)
            self.table.load(self.table.page_query)

    def action_resize_tree(self, step: int) -> None:
        """Widen (or narrow) the stores pane by ``step`` columns; the table keeps at
        least 24 and the tree at least 16."""
        tree = self.query_one(StoresTree)
        wanted = tree.outer_size.width + step
        width = max(TREE_MIN, min(wanted, self.size.width - TABLE_MIN))
        tree.styles.width = width
        tree.styles.min_width = width  # the stylesheet's bounds give way to the operator's
        tree.styles.max_width = width

    # The table's own commands, whose keys work wherever the focus is on the screen.
    action_focus_table = _on_table(NodeTable.focus_rows)
    action_filter = _on_table(NodeTable.start_filter)
    action_sort = _on_table(NodeTable.sort_by_cursor)
    action_next_page = _on_table(NodeTable.turn_page, 1)
    action_previous_page = _on_table(NodeTable.turn_page, -1)
    action_first_page = _on_table(NodeTable.first_page)
    action_last_page = _on_table(NodeTable.last_page)
    action_open_row = _on_table(NodeTable.open_cursor_row)

    def action_view_value(self) -> None:
        value = self.table.cursor_value()
        if value is not None and self.table.source is not None:
            column, data = value
            self.app.push_screen(ValueModal(f"{self.table.source.table.name}.{column}", data))

    def action_copy_row(self) -> None:
        """The row under the cursor, every column, as JSON on the clipboard."""
        source, page, cell = self.table.source, self.table.page, self.table.cursor_value()
        if source is None or page is None or cell is None:
            self.notify("Open a table and put the cursor on a row first", severity="warning")
            return
        row = self.table.query_one("#grid", DataTable).cursor_row
        values = {name: page.data.column(name)[row].as_py() for name in page.data.column_names}
        self.app.copy_to_clipboard(as_json(values))
        self.notify(f"Copied a row of {source.table.name} as JSON")

    def action_query(self) -> None:
        """The query box for the agent pointed at (see ``_cursor_target``)."""
        target = self._agent_target("No retrieval here", "only hierarchical stores "
                                    "(hierarchical_memory/…) have retrieve_subgraph")  # fmt: skip
        if target is not None:
            from memexplorer.app.screens.query_screen import (
                QueryScreen,  # each screen loads when first opened
            )

            self.app.push_screen(QueryScreen(self.session, target[0].path, target[1]))

    def action_graph_row(self) -> None:
        """The neighbourhood graph of the node row under the table's cursor."""
        source, page, cell = self.table.source, self.table.page, self.table.cursor_value()
        if source is None or page is None or cell is None:
            self.notify("Open a table and put the cursor on a row first", severity="warning")
            return
        info = source.table
        if info.kind != "node" or info.primary_key is None:
            self.notify(f"{info.name} rows are not nodes with a key", severity="warning")
            return
        row = self.table.query_one("#grid", DataTable).cursor_row
        key = str(page.data.column(info.primary_key)[row].as_py())
        from memexplorer.app.screens.graph_screen import GraphScreen

        ref = NodeRef(source.browser.path, info.name, key)
        self.app.push_screen(GraphScreen(self.session, ref))

    def action_chains(self) -> None:
        """The temporal chains of the agent pointed at (see ``_cursor_target``)."""
        target = self._agent_target("No chains here", "no temporal chains")
        if target is not None:
            from memexplorer.app.screens.chain_screen import ChainScreen

            self.app.push_screen(ChainScreen(self.session, target[0].path, target[1]))

    def action_history(self) -> None:
        """The snapshots and backups of the agent pointed at, each opening a diff."""
        target = self._agent_target("No history here", "snapshots and diffs work on "
                                    "hierarchical agent stores")  # fmt: skip
        if target is not None and not target[1]:
            self.notify(f"{target[0].path.name} holds no agent to compare", severity="warning")
        elif target is not None:
            from memexplorer.app.screens.history_screen import HistoryScreen

            entry, agent = target
            self.app.push_screen(HistoryScreen(self.session, entry.path, agent))

    def action_duplicates(self) -> None:
        """The groups of near-identical facts of the agent pointed at, to merge."""
        target = self._agent_target("No duplicates here", "duplicates are facts of a "
                                    "hierarchical agent")  # fmt: skip
        if target is not None:
            from memexplorer.app.screens.duplicates_screen import DuplicatesScreen

            entry, agent = target
            screen = DuplicatesScreen(self.session, entry.path, agent)
            self.app.push_screen(screen, lambda wrote: wrote and self.reload_after_write())

    def _store_target(self) -> StoreEntry | None:
        """The store pointed at, if it opened; else say why not."""
        target = self._cursor_target()
        if target is None:
            self.notify("Choose a store in the stores tree first", severity="warning")
            return None
        if target[0].state != "ok":
            if target[0].error is not None:  # an entry not "ok" holds why
                self.session.show_error(target[0].error)
            return None
        return target[0]

    def action_console(self) -> None:
        """The query console on the store pointed at (any kind, any agent)."""
        entry = self._store_target()
        if entry is not None:
            from memexplorer.app.screens.console_screen import ConsoleScreen

            console = ConsoleScreen(self.session, entry.path, entry.format.engine, entry.kind)
            self.app.push_screen(console, lambda touched: self._console_closed(entry, touched))

    def _console_closed(self, entry: StoreEntry, touched: bool | None) -> None:
        if touched:
            self.writing_changed(entry.path)

    # -- writing mode (see writing_modal.py) ---------------------------------------------
    def writing_target(self) -> tuple[Path, str] | None:
        entry = self._store_target()
        return (entry.path, entry.format.engine) if entry is not None else None

    def writing_changed(self, store: Path) -> None:
        """The store was reopened: new counts, the open table on the new handle."""
        self.session.wrote([store])
        self.reload_stores([store])
        self.show_mode()

    def show_mode(self) -> None:
        """The sub-title leads with the open table's store mode: read-only or writing."""
        source = self.table.source
        if source is None:
            writing = [p.name for p in self.session.writing_stores()]
            mode = f"writing {', '.join(writing)}" if writing else read_only_label()
            self.sub_title = f"{mode} · {self.root}"
            return
        entry = self._entry_for(source.browser.path)
        fmt = entry.format if entry is not None else None
        version = f" storage {fmt.storage_version}" if fmt and fmt.storage_version else ""
        engine = f"{fmt.engine}{version} · " if fmt else ""
        mode = self.session.mode(source.browser.path)
        self.sub_title = f"{mode} · {engine}{source.browser.path}"

    def action_audit(self) -> None:
        """The credential audit of every store under the folder the app was opened on."""
        from memexplorer.app.screens.audit_screen import AuditScreen

        self.app.push_screen(AuditScreen(self.session))

    def action_cancel(self) -> None:
        if not self.table.cancel():
            self.table.stop_filter()
