"""One node: every property, its edges in and out by rel type, each a link onwards."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widgets import DataTable, Footer, Header, Static, Tree
from textual.worker import Worker

from memexplorer.app.clipboard import as_json
from memexplorer.app.literal import cell
from memexplorer.app.operator_session import OperatorSession
from memexplorer.app.screens.node_commands import NODE_COMMANDS
from memexplorer.app.screens.operator_screen import OperatorScreen
from memexplorer.app.screens.value_modal import BASE64_NOTE, ValueModal
from memexplorer.app.session_mode import write_action
from memexplorer.app.widgets.node_ref import NodeRef
from memexplorer.app.widgets.worker_errors import report_failed_worker
from memexplorer.operator.browse import EdgeInfo, NodeDetail
from memexplorer.storage.stored_json import decode_stored_json

_CELL = 70


def _cell(value: Any) -> str:
    if isinstance(value, float):
        return str(round(value, 3))
    text = "NULL" if value is None else " ".join(str(value).split())
    return text if len(text) <= _CELL else text[: _CELL - 1] + "…"


def _property_cell(value: Any) -> Text:
    """A property's cell; base64 of JSON is shown decoded, with a note."""
    decoded, was_base64 = decode_stored_json(value)
    if not was_base64:
        return cell(_cell(value))
    shown = Text(_cell(json.dumps(decoded, ensure_ascii=False)))
    shown.append(f"  ({BASE64_NOTE})", style="dim italic")
    return shown


def edge_label(edge: EdgeInfo) -> Text:
    label = Text(edge.neighbour_table, style="cyan")
    label.append(f"  {edge.neighbour_label or edge.neighbour_key}")
    shown = {k: v for k, v in edge.properties.items() if v not in (None, "", {}, [])}
    if shown:
        label.append("  " + ", ".join(f"{k}={_cell(v)[:30]}" for k, v in shown.items()),
                     style="dim")  # fmt: skip
    return label


class NodeDetailScreen(OperatorScreen[None]):
    """A node and its neighbourhood, one hop; links move along like a browser."""

    SCREEN_COMMANDS = NODE_COMMANDS

    HELP = (
        "A node with every property (left) and its edges (right), grouped by rel type and "
        "direction. **enter** on an edge opens the neighbour; **backspace** goes back."
    )
    CSS_PATH = "node_detail_screen.tcss"

    @dataclass
    class Loaded(Message):
        ref: NodeRef
        detail: NodeDetail

    def __init__(self, session: OperatorSession, ref: NodeRef) -> None:
        super().__init__(session)
        self.ref = ref
        self.detail: NodeDetail | None = None

    def compose(self) -> ComposeResult:
        yield Header()
        with Vertical():
            yield Static(id="title")
            yield Static(id="flags", markup=False)  # flags quote stored values
            with Horizontal(id="panes"):
                properties: DataTable[str] = DataTable(id="properties", cursor_type="row")
                properties.border_title = "properties"
                yield properties
                edges: Tree[NodeRef | None] = Tree("edges", id="edges")
                edges.show_root = False
                edges.border_title = "edges"
                yield edges
        yield Footer()

    def on_mount(self) -> None:
        self.sub_title = f"{self.session.mode(self.ref.store)} · {self.ref.store}"
        self.query_one("#properties", DataTable).add_columns("property", "value")
        self.show(self.ref)

    def show(self, ref: NodeRef) -> None:
        self.ref = ref
        self.query_one("#title", Static).update(Text(f"{ref.table} {ref.key}: loading…"))
        self.loading = True
        self.fetch(ref)

    @work(thread=True, exclusive=True, group="node", exit_on_error=False)
    def fetch(self, ref: NodeRef) -> None:
        detail = self.session.browser(ref.store).node(ref.table, ref.key)
        self.post_message(self.Loaded(ref, detail))

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if report_failed_worker(event, self.session):
            self.loading = False
            self.query_one("#title", Static).update(Text(f"{self.ref.table} {self.ref.key}"))

    def on_node_detail_screen_loaded(self, message: Loaded) -> None:
        if message.ref != self.ref:
            return
        self.loading = False
        self.detail = detail = message.detail
        title = Text(detail.table, style="bold cyan")
        title.append(f"  {detail.label}", style="bold")
        title.append(f"  {detail.key}", style="dim")
        self.query_one("#title", Static).update(title)
        flags = self.query_one("#flags", Static)
        flags.update("\n".join(f"⚠ {f}" for f in detail.flags))
        flags.display = bool(detail.flags)
        table = self.query_one("#properties", DataTable)
        table.clear()
        for name, value in detail.properties.items():
            table.add_row(cell(name), _property_cell(value), key=name)
        self._fill_edges(detail)
        table.focus()

    def _fill_edges(self, detail: NodeDetail) -> None:
        tree: Tree[NodeRef | None] = self.query_one("#edges", Tree)
        tree.clear()
        if not detail.edges:
            tree.root.add_leaf(Text("no edges", style="dim"))
        for (rel, direction), edges in sorted(detail.edges.items()):
            arrow = "→" if direction == "out" else "←"
            more = detail.more.get((rel, direction), 0)
            group = tree.root.add(Text(f"{arrow} {rel} ({len(edges) + more:,})", style="bold"))
            for edge in edges:
                ref = NodeRef(self.ref.store, edge.neighbour_table, edge.neighbour_key)
                group.add_leaf(edge_label(edge), ref if edge.neighbour_key else None)
            if more:
                group.add_leaf(Text(f"+{more:,} more", style="dim italic"))
            group.expand()
        first = next((n for g in tree.root.children for n in g.children if n.data), None)
        if first is not None:
            self.call_after_refresh(tree.move_cursor, first)

    @on(Tree.NodeSelected, "#edges")
    def follow(self, event: Tree.NodeSelected[NodeRef | None]) -> None:
        if event.node.data is not None:
            self.session.open_node(event.node.data)

    def action_open_edge(self) -> None:
        tree: Tree[NodeRef | None] = self.query_one("#edges", Tree)
        node = tree.cursor_node
        if node is not None and node.data is not None:
            self.session.open_node(node.data)

    def action_view_property(self) -> None:
        table = self.query_one("#properties", DataTable)
        if self.detail is None or not table.row_count:
            return
        name = str(table.get_row_at(table.cursor_row)[0])
        self.app.push_screen(
            ValueModal(f"{self.detail.table}.{name}", self.detail.properties[name])
        )

    def action_copy_properties(self) -> None:
        """Every property of the node as JSON on the clipboard."""
        if self.detail is None:
            return
        self.app.copy_to_clipboard(as_json(self.detail.properties))
        self.notify(f"Copied the properties of {self.detail.table} {self.detail.key} as JSON")

    def action_graph(self) -> None:
        from memexplorer.app.screens.graph_screen import GraphScreen

        self.app.push_screen(GraphScreen(self.session, self.ref))

    def action_chain(self) -> None:
        """The chains of the fact's agent, this fact's chain chosen."""
        from memexplorer.app.screens.chain_screen import ChainScreen

        detail = self.detail
        is_fact = detail is not None and detail.table == "SemanticMemory"
        if detail is None or not is_fact or "agent_id" not in detail.properties:
            self.notify("Only facts (SemanticMemory nodes) have chains", severity="warning")
            return
        agent = str(detail.properties["agent_id"] or "")
        self.app.push_screen(ChainScreen(self.session, self.ref.store, agent, self.ref.key))

    @write_action("Correct")
    def action_correct(self) -> None:
        """Store the right value of this fact the agent's way (a preview first)."""
        from memexplorer.app.screens.correct_actions import open_correct

        detail = self.detail
        if detail is None or detail.table not in ("SemanticMemory", "semantic_memories"):
            self.notify("Only facts (SemanticMemory nodes) can be corrected", severity="warning")
            return
        agent = str(detail.properties.get("agent_id") or "")
        open_correct(
            self, self.session, self.ref.store, agent, self.ref.key, lambda: self.show(self.ref)
        )

    def action_close(self) -> None:
        self.session.close_nodes()
