"""Stores, their agents, and each agent's tables, loaded as the operator expands them."""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from rich.style import Style
from rich.text import Text
from textual import work
from textual.message import Message
from textual.widgets import Tree
from textual.widgets.tree import TreeNode
from textual.worker import Worker

from memexplorer.app.operator_session import OperatorSession
from memexplorer.app.widgets.fitted_label import fit_label
from memexplorer.app.widgets.widget_message import WidgetMessage
from memexplorer.app.widgets.worker_errors import report_failed_worker
from memexplorer.memory.rs_sqlite_schema import EDGE_TABLE_NAMES
from memexplorer.operator.browse import TableInfo
from memexplorer.operator.catalog import StoreEntry, list_stores
from memexplorer.operator.wording import counted, distinct_places
from memexplorer.storage.graph_store import QueryError

_KIND_STYLE = {"hierarchical": "cyan", "cognitive": "magenta", "experience": "yellow",
               "flat": "green"}  # fmt: skip
#: Short, so the tree keeps them whole; choosing the store shows the full story.
_STATE_NOTE = {"locked": "locked (in use)", "unsupported": "other engine",
               "error": "unreadable"}  # fmt: skip


@dataclass(frozen=True)
class StoreItem:
    entry: StoreEntry


@dataclass(frozen=True)
class AgentItem:
    entry: StoreEntry
    agent: str


@dataclass(frozen=True)
class TableItem:
    entry: StoreEntry
    agent: str
    table: TableInfo


TreeData = StoreItem | AgentItem | TableItem | None


def _entry_path(node: TreeNode[TreeData]) -> Path | None:
    return node.data.entry.path if isinstance(node.data, StoreItem) else None


def _table_name(node: TreeNode[TreeData]) -> str | None:
    return node.data.table.name if isinstance(node.data, TableItem) else None


def store_label(entry: StoreEntry, root: Path, place: str | None = None) -> Text:
    """The store's place under the root (see :func:`distinct_places`), kind, engine
    and version."""
    label = Text(place or distinct_places([entry.path], root)[0], style="bold")
    fmt = entry.format
    version = f" {fmt.storage_version}" if fmt.storage_version else ""
    if entry.state == "ok":
        label.append(f"  {entry.kind}", style=_KIND_STYLE.get(entry.kind, "dim"))
        label.append(f" {fmt.engine}{version}", style="dim")
        if entry.summary is not None and entry.summary.unreplayed_log:
            label.append("  at last checkpoint (log not replayed)", style="yellow")
        if entry.summary is not None and entry.summary.read_by_cache:
            label.append(f"  read by {entry.summary.read_by}", style="yellow")
    elif command := getattr(entry.error, "add_command", ""):
        release = command.rsplit(" ", 1)[-1].replace("==", " ")
        label.append(f"  {fmt.engine}{version} needs {release}", style="red")
    else:
        label.append(f"  {fmt.engine}{version} {_STATE_NOTE[entry.state]}", style="red")
    return label


def _record_tables(entry: StoreEntry) -> set[str]:
    """The tables whose rows are records: rel tables are named in capitals
    (SIMILAR_TO), amplihack-rs's SQLite edge tables ``<rel>_edges``."""
    return {
        table
        for counts in entry.agents.values()
        for table in counts
        if not table.isupper() and table not in EDGE_TABLE_NAMES
    }


def agent_label(agent: str, counts: dict[str, int], node_tables: set[str]) -> Text:
    records = sum(count for table, count in counts.items() if table in node_tables)
    label = Text(agent or "(no agent)", style="bold")
    label.append(f"  {counted(records, 'record')}", style="dim")
    return label


def table_label(table: TableInfo) -> Text:
    label = Text(table.name, style="italic" if table.kind == "rel" else "")
    label.append(f"  {table.count:,}", style="dim")
    return label


class StoresTree(Tree[TreeData]):
    """Everything under the root folder; tables load when an agent is expanded."""

    HELP = "Stores under the folder you opened. Expand an agent to list its tables."
    BINDING_GROUP_TITLE = "Stores"

    @dataclass
    class TableChosen(WidgetMessage["StoresTree"]):
        item: TableItem

    @dataclass
    class StoreChosen(WidgetMessage["StoresTree"]):
        entry: StoreEntry

    @dataclass
    class StoresLoaded(Message):
        tree: StoresTree
        entries: list[StoreEntry]
        #: When the listing began (time.monotonic): changes noticed after it may
        #: not be in what it read.
        started: float = 0.0

    @dataclass
    class TablesLoaded(Message):
        tree: StoresTree
        node: TreeNode[TreeData]
        tables: list[TableInfo]

    def __init__(self, session: OperatorSession, **kwargs: object) -> None:
        super().__init__(Text(str(session.root)), **kwargs)  # type: ignore[arg-type]
        self.session = session
        self.root_path = session.root
        self.show_root = False
        self.guide_depth = 3
        self.entries: list[StoreEntry] = []
        self._loaded: set[int] = set()
        #: Where the cursor was before a reload: (store, agent, table), to go back to.
        self._return_to: tuple[Path, str | None, str | None] | None = None

    def on_mount(self) -> None:
        self.reload()

    def render_label(self, node: TreeNode[TreeData], base_style: Style, style: Style) -> Text:
        """An agent's or a table's label fitted to the pane: the name shortened
        before the count is cropped (fitted_label.py). A store's label is its
        place first, cropped as it is."""
        label = super().render_label(node, base_style, style)
        if not isinstance(node.data, AgentItem | TableItem):
            return label
        depth = 0
        parent = node.parent
        while parent is not None:
            depth, parent = depth + 1, parent.parent
        room = self.scrollable_content_region.width - (depth - 1) * self.guide_depth
        icon = len(self.ICON_NODE) if node.allow_expand else 0
        return fit_label(label, room, start=icon)

    def _cursor_place(self) -> tuple[Path, str | None, str | None] | None:
        node = self.cursor_node
        item = node.data if node is not None else None
        if isinstance(item, TableItem):
            return item.entry.path, item.agent, item.table.name
        if isinstance(item, AgentItem):
            return item.entry.path, item.agent, None
        if isinstance(item, StoreItem):
            return item.entry.path, None, None
        return self._return_to  # a reload before the last one finished: keep its aim

    def reload(self) -> None:
        """List the stores again; the cursor comes back to the store, agent and table
        it was on (a switch to writing, an undo or a restore must not move it)."""
        self._return_to = self._cursor_place()
        self._loaded.clear()
        self.clear()
        self.root.add_leaf(Text("looking for stores…", style="dim italic"))
        self.load_stores(time.monotonic())  # asked now: the worker may start later

    @work(thread=True, exclusive=True, group="stores", exit_on_error=False)
    def load_stores(self, started: float) -> None:
        entries = list_stores(self.root_path)
        self.post_message(self.StoresLoaded(self, entries, started))

    def on_stores_tree_stores_loaded(self, message: StoresLoaded) -> None:
        self.entries = message.entries
        self.clear()
        if not message.entries:
            self.root.add_leaf(Text(f"no memory stores under {self.root_path}", style="dim"))
            return
        places = distinct_places([entry.path for entry in message.entries], self.root_path)
        for entry, place in zip(message.entries, places, strict=True):
            node = self.root.add(store_label(entry, self.root_path, place), StoreItem(entry))
            node_tables = _record_tables(entry)
            for agent, counts in sorted(entry.agents.items()):
                child = node.add(agent_label(agent, counts, node_tables), AgentItem(entry, agent))
                child.add_leaf(Text("loading…", style="dim italic"))
            if entry.state == "ok" and not entry.agents:
                child = node.add(Text("all rows", style="bold"), AgentItem(entry, ""))
                child.add_leaf(Text("loading…", style="dim italic"))
            node.expand()
        # A new node has no line until the tree is laid out again: move after that.
        self.call_after_refresh(self.move_cursor, self._returned_node() or self.root.children[0])

    def _returned_node(self) -> TreeNode[TreeData] | None:
        """The node of the store and agent the cursor was on before the reload; its
        agent is expanded again when the cursor was on one of its tables."""
        if self._return_to is None:
            return None
        path, agent, table = self._return_to
        store = next((n for n in self.root.children if _entry_path(n) == path), None)
        if store is None or agent is None:
            self._return_to = None
            return store
        child = next(
            (n for n in store.children if isinstance(n.data, AgentItem) and n.data.agent == agent),
            None,
        )
        if child is None or table is None:
            self._return_to = None
            return child or store
        child.expand()  # its tables load in a worker; the cursor moves on when they come
        return child

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if report_failed_worker(event, self.session) and event.worker.group == "stores":
            self.clear()
            self.root.add_leaf(Text(f"cannot list {self.root_path}", style="red"))

    def on_tree_node_expanded(self, event: Tree.NodeExpanded[TreeData]) -> None:
        item = event.node.data
        if isinstance(item, AgentItem) and event.node.id not in self._loaded:
            self._loaded.add(event.node.id)
            self.load_tables(event.node, item)

    @work(thread=True, group="tables", exit_on_error=False)
    def load_tables(self, node: TreeNode[TreeData], item: AgentItem) -> None:
        self.post_message(self.TablesLoaded(self, node, self._read_tables(item)))

    def _read_tables(self, item: AgentItem) -> list[TableInfo]:
        """The agent's tables. Our own write (an undo, a restore) may close the store
        while this reads it, and reopens it: then read again from the new handle."""
        for attempt in range(2):
            browser = self.session.browser(item.entry.path)
            try:
                return browser.tables(item.agent)
            except QueryError:
                closed_under_us = self.session.browser(item.entry.path) is not browser
                if attempt or not closed_under_us:
                    raise
        raise AssertionError("unreachable")  # the loop returns or raises

    def on_stores_tree_tables_loaded(self, message: TablesLoaded) -> None:
        node, item = message.node, message.node.data
        assert isinstance(item, AgentItem)
        node.remove_children()
        for table in message.tables:
            node.add_leaf(table_label(table), TableItem(item.entry, item.agent, table))
        if self._return_to is not None and self._return_to[:2] == (item.entry.path, item.agent):
            wanted = self._return_to[2]
            self._return_to = None
            leaf = next((n for n in node.children if _table_name(n) == wanted), None)
            if leaf is not None:
                self.call_after_refresh(self.move_cursor, leaf)

    def on_tree_node_selected(self, event: Tree.NodeSelected[TreeData]) -> None:
        item = event.node.data
        if isinstance(item, TableItem):
            self.post_message(self.TableChosen(self, item))
        elif isinstance(item, StoreItem):
            self.post_message(self.StoreChosen(self, item.entry))
