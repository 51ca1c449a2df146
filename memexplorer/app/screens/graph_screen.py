"""A node's neighbourhood as a drawing: boxes and labelled edges, one or two hops."""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.message import Message
from textual.widgets import Footer, Header, Static
from textual.worker import Worker

from memexplorer.app.graph_drawing import Box
from memexplorer.app.operator_session import OperatorSession
from memexplorer.app.screens.graph_commands import GRAPH_COMMANDS
from memexplorer.app.screens.operator_screen import OperatorScreen
from memexplorer.app.widgets.neighbourhood_graph import NeighbourhoodGraph, table_style
from memexplorer.app.widgets.node_ref import NodeRef
from memexplorer.app.widgets.worker_errors import report_failed_worker
from memexplorer.operator.neighbourhood import Neighbourhood, NeighbourhoodReader, View
from memexplorer.operator.rs_sqlite_browse import RsSqliteBrowser
from memexplorer.operator.rs_sqlite_neighbourhood import RsNeighbourhoodReader
from memexplorer.operator.wording import counted


class GraphScreen(OperatorScreen[None]):
    """The neighbourhood of one node; the operator walks it box by box."""

    SCREEN_COMMANDS = GRAPH_COMMANDS

    HELP = (
        "The node and its neighbours, one or two hops out. Each node shows its best "
        "edges (heaviest, then most recent) and a **+N more** box for the rest. Arrows or "
        "**tab** move between boxes; **enter** opens a node (on **+N more**: shows more); "
        "**space** expands or collapses a node (on the centre: draws more of its edges); "
        "**d** switches depth 1/2; **c** centres the drawing on the selected node."
    )
    CSS_PATH = "graph_screen.tcss"

    @dataclass
    class Loaded(Message):
        ref: NodeRef
        hood: Neighbourhood
        keep: Box | None

    def __init__(self, session: OperatorSession, ref: NodeRef, view: View | None = None) -> None:
        super().__init__(session)
        self.ref = ref
        self.view = view or View()
        self.reader: NeighbourhoodReader | None = None

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(id="status")
        yield NeighbourhoodGraph(id="graph")
        yield Footer()

    @property
    def graph(self) -> NeighbourhoodGraph:
        return self.query_one(NeighbourhoodGraph)

    def on_mount(self) -> None:
        self.sub_title = f"{self.session.mode(self.ref.store)} · {self.ref.store}"
        self.load()

    def load(self, keep: Box | None = None) -> None:
        self.query_one("#status", Static).update(Text(f"{self.ref.table} {self.ref.key}: loading…"))
        self.fetch(self.ref, self.view, keep)

    @work(thread=True, exclusive=True, group="graph", exit_on_error=False)
    def fetch(self, ref: NodeRef, view: View, keep: Box | None) -> None:
        if self.reader is None:
            browser = self.session.browser(ref.store)
            self.reader = (RsNeighbourhoodReader(browser) if isinstance(browser, RsSqliteBrowser)
                           else NeighbourhoodReader(browser))  # fmt: skip
        self.post_message(self.Loaded(ref, self.reader.read(ref.table, ref.key, view), keep))

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if report_failed_worker(event, self.session):
            self.query_one("#status", Static).update(Text(f"{self.ref.table} {self.ref.key}"))

    def on_graph_screen_loaded(self, message: Loaded) -> None:
        if message.ref == self.ref and message.hood.view == self.view:
            self.graph.show(message.hood, message.keep)

    @on(NeighbourhoodGraph.Highlighted)
    def describe(self, message: NeighbourhoodGraph.Highlighted) -> None:
        hood, box = self.graph.hood, message.box
        if hood is None:
            return
        centre = hood.nodes[hood.centre]
        sizes = f"{counted(len(hood.nodes), 'node')}, {counted(len(hood.edges), 'edge')}"
        # A node closed with x hides what the depth would draw: the line says so, or it
        # read "depth 2" over what looked like a depth-1 drawing.
        closed = sum(1 for n in hood.nodes.values() if n.id in hood.view.collapsed)
        shut = f" · {counted(closed, 'node')} closed (x opens)" if closed else ""
        line = Text(f"depth {hood.view.depth}{shut} · {sizes} around ", style="dim")
        line.append(centre.table, style=table_style(centre.table)).append(f" {centre.label}")
        node = hood.nodes[box.node]
        selected = Text("▶ ")
        if box.kind == "more":
            selected.append(f"{node.hidden:,} more edges of {node.label} (enter: show more)")
        else:
            selected.append(node.table, style=f"bold {table_style(node.table)}")
            selected.append(f" {node.key}  ", style="dim")
            if node.expanded:
                selected.append(f"{counted(node.degree, 'edge')}, {node.hidden:,} not drawn  ",
                               style="dim")  # fmt: skip
            selected.append(node.label)
        for text in (line, selected):
            text.no_wrap, text.overflow = True, "ellipsis"
        self.query_one("#status", Static).update(Text("\n").join([line, selected]))

    # -- commands ------------------------------------------------------------------------
    def action_select(self, direction: str) -> None:
        self.graph.move(direction)

    def action_open_selected(self) -> None:
        box = self.graph.selected_box
        if box is None:
            return
        if box.kind == "more":
            self._show_more(box)
            return
        node = self.graph.hood.nodes[box.node]  # type: ignore[union-attr]
        self.session.open_node(NodeRef(self.ref.store, node.table, node.key))

    def action_toggle_selected(self) -> None:
        box, hood = self.graph.selected_box, self.graph.hood
        if box is None or hood is None:
            return
        if box.kind == "more":
            self._show_more(box)
            return
        if box.node == hood.centre:
            # The centre is always open: collapsing it would leave one box and no
            # way back, so space draws more of its edges, as its +N more box does.
            centre = hood.nodes[box.node]
            if centre.hidden:
                self._show_more(box)
            else:
                self.notify(f"Every edge of {centre.label} is drawn.", timeout=3)
            return
        is_open = hood.nodes[box.node].expanded
        self.view = self.view.toggled(box.node, is_open=is_open)
        self.load(keep=box)

    def _show_more(self, box: Box) -> None:
        hood = self.graph.hood
        step = self.view.centre_cap if hood and box.node == hood.centre else self.view.cap
        self.view = self.view.with_more(box.node, step)
        self.load(keep=box)

    def action_toggle_depth(self) -> None:
        self.view = View(depth=3 - self.view.depth, centre_cap=self.view.centre_cap,
                         cap=self.view.cap)  # fmt: skip
        self.load(keep=self.graph.selected_box)

    def action_recentre(self) -> None:
        box, hood = self.graph.selected_box, self.graph.hood
        if box is None or hood is None or box.node == hood.centre:
            return
        node = hood.nodes[box.node]
        self.ref = NodeRef(self.ref.store, node.table, node.key)
        self.view = View(depth=self.view.depth, centre_cap=self.view.centre_cap, cap=self.view.cap)
        self.load(keep=box)

    def action_close(self) -> None:
        self.dismiss()
