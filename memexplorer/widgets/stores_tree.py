"""Stores, their agents, and each agent's tables, loaded as the operator expands them."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from rich.text import Text
from textual import work
from textual.message import Message
from textual.widgets import Tree
from textual.widgets.tree import TreeNode
from textual.worker import Worker

from memexplorer.engine.browse import TableInfo
from memexplorer.engine.catalog import StoreEntry, list_stores
from memexplorer.screens.error_modal import report_failed_worker
from memexplorer.wording import counted

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


def store_label(entry: StoreEntry, root: Path) -> Text:
    """The store's place under the root (its last two parts), kind, engine and version."""
    try:
        parts = entry.path.relative_to(root).parts or (entry.path.name,)
    except ValueError:
        parts = entry.path.parts
    label = Text("/".join(parts[-2:]), style="bold")
    fmt = entry.format
    version = f" {fmt.storage_version}" if fmt.storage_version else ""
    if entry.state == "ok":
        label.append(f"  {entry.kind}", style=_KIND_STYLE.get(entry.kind, "dim"))
        label.append(f" {fmt.engine}{version}", style="dim")
        if entry.summary is not None and entry.summary.unreplayed_log:
            label.append("  at last checkpoint (log not replayed)", style="yellow")
    else:
        label.append(f"  {fmt.engine}{version} {_STATE_NOTE[entry.state]}", style="red")
    return label


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
    class TableChosen(Message):
        tree: StoresTree
        item: TableItem

        @property
        def control(self) -> StoresTree:
            return self.tree

    @dataclass
    class StoreChosen(Message):
        tree: StoresTree
        entry: StoreEntry

        @property
        def control(self) -> StoresTree:
            return self.tree

    @dataclass
    class StoresLoaded(Message):
        tree: StoresTree
        entries: list[StoreEntry]

    @dataclass
    class TablesLoaded(Message):
        tree: StoresTree
        node: TreeNode[TreeData]
        tables: list[TableInfo]

    def __init__(self, root: Path, **kwargs: object) -> None:
        super().__init__(str(root), **kwargs)  # type: ignore[arg-type]
        self.root_path = root
        self.show_root = False
        self.guide_depth = 3
        self.entries: list[StoreEntry] = []
        self._loaded: set[int] = set()

    def on_mount(self) -> None:
        self.reload()

    def reload(self) -> None:
        self._loaded.clear()
        self.clear()
        self.root.add_leaf(Text("looking for stores…", style="dim italic"))
        self.load_stores()

    @work(thread=True, exclusive=True, group="stores", exit_on_error=False)
    def load_stores(self) -> None:
        entries = list_stores(self.root_path)
        self.post_message(self.StoresLoaded(self, entries))

    def on_stores_tree_stores_loaded(self, message: StoresLoaded) -> None:
        self.entries = message.entries
        self.clear()
        if not message.entries:
            self.root.add_leaf(Text(f"no memory stores under {self.root_path}", style="dim"))
            return
        for entry in message.entries:
            node = self.root.add(store_label(entry, self.root_path), StoreItem(entry))
            # Rel tables are named in capitals (SIMILAR_TO); the rest hold records.
            node_tables = {t for counts in entry.agents.values() for t in counts if not t.isupper()}
            for agent, counts in sorted(entry.agents.items()):
                child = node.add(agent_label(agent, counts, node_tables), AgentItem(entry, agent))
                child.add_leaf(Text("loading…", style="dim italic"))
            if entry.state == "ok" and not entry.agents:
                child = node.add(Text("all rows", style="bold"), AgentItem(entry, ""))
                child.add_leaf(Text("loading…", style="dim italic"))
            node.expand()
        self.move_cursor(self.root.children[0])

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if report_failed_worker(event) and event.worker.group == "stores":
            self.clear()
            self.root.add_leaf(Text(f"cannot list {self.root_path}", style="red"))

    def on_tree_node_expanded(self, event: Tree.NodeExpanded[TreeData]) -> None:
        item = event.node.data
        if isinstance(item, AgentItem) and event.node.id not in self._loaded:
            self._loaded.add(event.node.id)
            self.load_tables(event.node, item)

    @work(thread=True, group="tables", exit_on_error=False)
    def load_tables(self, node: TreeNode[TreeData], item: AgentItem) -> None:
        browser = self.app.browsers.get(item.entry.path)  # type: ignore[attr-defined]
        self.post_message(self.TablesLoaded(self, node, browser.tables(item.agent)))

    def on_stores_tree_tables_loaded(self, message: TablesLoaded) -> None:
        node, item = message.node, message.node.data
        assert isinstance(item, AgentItem)
        node.remove_children()
        for table in message.tables:
            node.add_leaf(table_label(table), TableItem(item.entry, item.agent, table))

    def on_tree_node_selected(self, event: Tree.NodeSelected[TreeData]) -> None:
        item = event.node.data
        if isinstance(item, TableItem):
            self.post_message(self.TableChosen(self, item))
        elif isinstance(item, StoreItem):
            self.post_message(self.StoreChosen(self, item.entry))
