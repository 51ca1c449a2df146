"""Every temporal chain of one agent (left) and the chosen one as a timeline (right).

Opened from the stores (an agent's chains) or from a fact (its chain chosen). The
chains are read in one worker with a few queries, whatever their number.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widgets import DataTable, Footer, Header, Static
from textual.worker import Worker

from memexplorer.app.literal import cell
from memexplorer.app.operator_session import OperatorSession
from memexplorer.app.screens.chain_commands import CHAIN_COMMANDS
from memexplorer.app.screens.operator_screen import OperatorScreen
from memexplorer.app.screens.value_modal import ValueModal
from memexplorer.app.widgets.chain_timeline import ChainTimeline
from memexplorer.app.widgets.node_ref import NodeRef
from memexplorer.app.widgets.worker_errors import report_failed_worker
from memexplorer.operator.browse import GraphBrowser
from memexplorer.operator.chains import TemporalChain, agent_chains, fact_chain
from memexplorer.operator.rs_sqlite_browse import RsSqliteBrowser
from memexplorer.operator.rs_sqlite_chains import rs_agent_chains, rs_fact_chain
from memexplorer.operator.wording import counted
from memexplorer.storage.exceptions import InvalidInputError

#: Short flags for the list; the timeline says them in words.
_FLAG_MARKS = {"fork": "⑂", "cycle": "↻", "gap": "⋯", "confidence lowered": "▼",
               "no current value": "∅"}  # fmt: skip


def load_chains(
    browser: object, agent: str, memory_id: str | None
) -> tuple[list[TemporalChain], int]:
    """The agent's chains and the index of the one holding ``memory_id`` (a fact in no
    chain comes first, as a chain of one)."""
    if isinstance(browser, RsSqliteBrowser):
        connection = browser.connection
        chains = rs_agent_chains(connection, agent)
        return _holding(chains, memory_id, lambda key: rs_fact_chain(connection, agent, key))
    if not isinstance(browser, GraphBrowser):
        raise InvalidInputError(
            "This store has no temporal chains",
            hint="Chains are SUPERSEDES links between facts of a HierarchicalMemory store.",
        )
    graph = browser.graph
    return _holding(agent_chains(graph, agent), memory_id,
                    lambda key: fact_chain(graph, agent, key))  # fmt: skip


def _holding(
    chains: list[TemporalChain], memory_id: str | None, alone: Callable[[str], TemporalChain]
) -> tuple[list[TemporalChain], int]:
    """The chains and the index of the one holding ``memory_id``; a fact in none comes
    first, as ``alone`` reads it (its chain of one)."""
    if memory_id is None:
        return chains, 0
    for index, chain in enumerate(chains):
        if any(step.memory_id == memory_id for step in chain.steps):
            return chains, index
    return [alone(memory_id), *chains], 0


def chain_title(chain: TemporalChain) -> Text:
    reduced = sum(len(step.supersedes) for step in chain.steps)
    title = Text(chain.concept or "(no concept)", style="bold")
    if chain.entity:
        title.append(f"  entity {chain.entity}", style="cyan")
    facts = counted(len(chain.steps), "fact")
    title.append(f"\n{facts} · {chain.stored_edges} stored chain edges, "
                 f"{reduced} after transitive reduction", style="dim")  # fmt: skip
    for cycle in chain.cycles:
        title.append("\n↻ cycle: " + " → ".join(step[:8] for step in [*cycle, cycle[0]]),
                     style="bold yellow")  # fmt: skip
    if chain.steps and not chain.current:
        title.append("\n∅ no current value: every fact is superseded", style="bold yellow")
    return title


class ChainScreen(OperatorScreen[None]):
    """How facts changed over time, chain by chain."""

    SCREEN_COMMANDS = CHAIN_COMMANDS

    HELP = (
        "Temporal chains: facts about one thing that replaced each other (SUPERSEDES, "
        "TRANSITIONED_TO), longest and most recently changed first. The timeline is the "
        "transitive reduction of the stored edges, oldest first. In the list: ⑂ fork, "
        "↻ cycle, ⋯ gap in the turns, ▼ lowered confidence, ∅ no current value."
    )
    CSS_PATH = "chain_screen.tcss"

    @dataclass
    class Loaded(Message):
        chains: list[TemporalChain]
        selected: int

    def __init__(
        self, session: OperatorSession, store: Path, agent: str, memory_id: str | None = None
    ) -> None:
        super().__init__(session)
        self.store = store
        self.agent = agent
        self.memory_id = memory_id
        self.chains: list[TemporalChain] = []

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal():
            chains: DataTable[str | Text] = DataTable(id="chains", cursor_type="row")
            chains.border_title = "chains"
            yield chains
            with Vertical():
                yield Static(Text("loading chains…", style="dim"), id="chain-title")
                yield ChainTimeline(id="timeline")
        yield Footer()

    def on_mount(self) -> None:
        mode = self.session.mode(self.store)
        self.sub_title = f"{mode} · {self.agent or '(no agent)'} · {self.store}"
        self.query_one("#chains", DataTable).add_columns("concept", "facts", "last change", "")
        self.loading = True
        self.fetch()

    @work(thread=True, exclusive=True, group="chains", exit_on_error=False)
    def fetch(self) -> None:
        browser = self.session.browser(self.store)
        self.post_message(self.Loaded(*load_chains(browser, self.agent, self.memory_id)))

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if report_failed_worker(event, self.session):
            self.loading = False
            self.query_one("#chain-title", Static).update(Text("cannot read the chains", "red"))

    def on_chain_screen_loaded(self, message: Loaded) -> None:
        self.loading = False
        self.chains = message.chains
        table = self.query_one("#chains", DataTable)
        table.clear()
        table.border_subtitle = counted(len(self.chains), "chain")
        for index, chain in enumerate(self.chains):
            concept = chain.concept if len(chain.concept) <= 24 else chain.concept[:23] + "…"
            marks = "".join(_FLAG_MARKS[flag] for flag in chain.flags)
            table.add_row(cell(concept), str(len(chain.steps)),
                          cell(chain.last_change[:16].replace("T", " ")),
                          Text(marks, style="bold yellow"), key=str(index))  # fmt: skip
        if not self.chains:
            self.query_one("#chain-title", Static).update(
                Text(f"{self.agent or 'This agent'} has no temporal chains.", style="dim")
            )
            table.focus()
            return
        table.move_cursor(row=message.selected)
        self._show(message.selected)
        timeline = self.query_one(ChainTimeline)
        (timeline if self.memory_id else table).focus()

    @on(DataTable.RowHighlighted, "#chains")
    def chain_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._show(event.cursor_row)

    @on(DataTable.RowSelected, "#chains")
    def chain_selected(self) -> None:
        self.query_one(ChainTimeline).focus()

    def _show(self, index: int) -> None:
        if not 0 <= index < len(self.chains):
            return
        timeline = self.query_one(ChainTimeline)
        if timeline.chain is self.chains[index]:
            return
        self.query_one("#chain-title", Static).update(chain_title(self.chains[index]))
        timeline.show(self.chains[index], at=self.memory_id)

    @on(ChainTimeline.StepChosen)
    def step_chosen(self, message: ChainTimeline.StepChosen) -> None:
        self._open(message.step.memory_id)

    def _open(self, memory_id: str) -> None:
        self.session.open_node(NodeRef(self.store, "SemanticMemory", memory_id))

    # -- commands ------------------------------------------------------------------------
    def action_open_step(self) -> None:
        step = self.query_one(ChainTimeline).step
        if step is not None:
            self._open(step.memory_id)

    def action_current_step(self) -> None:
        timeline = self.query_one(ChainTimeline)
        timeline.move_to_current()
        timeline.focus()

    def action_view_step(self) -> None:
        step = self.query_one(ChainTimeline).step
        if step is not None:
            self.app.push_screen(ValueModal(f"SemanticMemory {step.memory_id}", step.content))

    def action_close(self) -> None:
        self.app.pop_screen()
