"""The query box: what one agent's retrieval returns for a text, and why.

It runs the engine's own retrieval (through the app's MemoryPool, on the store
the browsers already hold open) with the agent's profile (``library`` by default,
``amplihack-rs``, or memexplorer's ``ranked``), so the operator sees exactly what
the agent would be shown: the facts, why each was chosen, the edges among them
and the ``to_llm_context()`` text; beside it the facts ``ranked`` finds that the
agent's retrieval left out, each with the step that cut it.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Footer, Header, Input, Static, Tree
from textual.worker import Worker

from memexplorer.app.profile_choices import ProfileChoices
from memexplorer.app.screens.query_commands import QUERY_COMMANDS
from memexplorer.app.screens.query_knobs import QueryKnobs
from memexplorer.app.screens.why_not_screen import WhyNotScreen
from memexplorer.app.widgets.context_pane import ContextPane
from memexplorer.app.widgets.history_list import HistoryList
from memexplorer.app.widgets.missed_list import MissedList
from memexplorer.app.widgets.node_ref import NodeRef
from memexplorer.app.widgets.query_results import QueryResults
from memexplorer.app.widgets.worker_errors import report_failed_worker
from memexplorer.memory.knowledge import KnowledgeNode, KnowledgeSubgraph
from memexplorer.memory.retrieval_explain import Explanation, Step, explain_retrieval
from memexplorer.memory.retrieval_indexed import index_pending
from memexplorer.memory.retrieval_profiles import DEFAULT_PROFILE
from memexplorer.operator.query_history import HistoryEntry, QueryHistory
from memexplorer.operator.retrieval_rs_sqlite import rs_sqlite_retrieve
from memexplorer.operator.rs_sqlite_transfer import is_rs_store
from memexplorer.operator.wording import counted

#: One writer of the history file at a time in this process.
_HISTORY_LOCK = threading.Lock()


@dataclass(frozen=True)
class Request:
    """One retrieval: the text and the knobs it ran with."""

    text: str
    max_nodes: int
    threshold: float
    profile: str


class QueryScreen(QueryKnobs, Screen[None]):
    """Run an agent's retrieval on a text and see what it returns, and why."""

    SCREEN_COMMANDS = QUERY_COMMANDS

    HELP = (
        "Type a query and press **enter**: the agent's `retrieve_subgraph` runs on it, "
        "read-only, with the profile in the title (**p** switches: library, amplihack-rs, "
        "ranked; kept per store). Under the facts, **missed** lists what ranked finds and "
        "the agent's retrieval left out, with the step that cut each; **w** on any fact "
        "walks it through every step. Each fact shows why it was returned (keyword terms, "
        "entity, a SIMILAR_TO hop with its weight, or the temporal chain it belongs to), its "
        "chain position and whether it was superseded; then the edges among the facts. Below is "
        "the `to_llm_context()` text an LLM would get. History (left) is kept across "
        "restarts and narrows as you type. **tab** leaves the query box: the letter keys "
        "below work outside it."
    )
    BINDINGS = QUERY_COMMANDS.bindings()
    CSS_PATH = "query_screen.tcss"

    @dataclass
    class Answered(Message):
        request: Request
        subgraph: KnowledgeSubgraph
        contexts: tuple[str, str]
        explanation: Explanation

    @dataclass
    class Walked(Message):
        fact: KnowledgeNode
        steps: list[Step]
        kept: bool

    @dataclass
    class HistoryLoaded(Message):
        entries: list[HistoryEntry]

    def __init__(self, store: Path, agent: str, history: QueryHistory | None = None) -> None:
        super().__init__()
        self.store = store
        self.agent = agent
        self.history = history or QueryHistory()
        self.choices = ProfileChoices()
        #: amplihack-rs's SQLite store: its agent retrieves with the amplihack-rs profile.
        self.sqlite = is_rs_store(store)
        self.profile = self.choices.get(store, "amplihack-rs" if self.sqlite else DEFAULT_PROFILE)
        self.max_nodes = 20
        self.threshold = 0.3
        self.chronological = False
        self.request: Request | None = None
        self.answer: QueryScreen.Answered | None = None
        self._unsaved: HistoryEntry | None = None

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="bar"):
            yield Input(placeholder=f"ask {self.agent}'s memory…", id="query")
            yield Static(id="settings")
        with Horizontal():
            yield HistoryList(self.agent, str(self.store), id="history")
            with Vertical(id="answer"):
                yield QueryResults(id="results")
                yield MissedList(id="missed")
                yield ContextPane(id="context")
        yield Footer()

    def on_mount(self) -> None:
        self._show_settings()
        self.query_one("#query", Input).focus()
        self.load_history()

    @property
    def results(self) -> QueryResults:
        return self.query_one(QueryResults)

    @property
    def context(self) -> ContextPane:
        return self.query_one(ContextPane)

    def _show_settings(self) -> None:
        mode = self.app.browsers.mode(self.store)  # type: ignore[attr-defined]
        self.sub_title = f"profile {self.profile} · {mode} · {self.agent} · {self.store}"
        order = "chronological" if self.chronological else "by confidence"
        self.query_one("#settings", Static).update(
            Text(
                f"{self.profile} · max {self.max_nodes} nodes · "
                f"similarity ≥ {self.threshold:.2f} · {order}"
            )
        )

    # -- retrieval ------------------------------------------------------------------------
    def run_query(self, text: str) -> None:
        """Retrieve for ``text`` with the current knobs (and record it in the history)."""
        if not text.strip():
            return
        self.request = Request(text.strip(), self.max_nodes, self.threshold, self.profile)
        # A title, not the animated loading indicator: its frames would take the GIL
        # from the worker (kuzu hands rows to Python one call at a time).
        self.results.border_title = f"searching for {self.request.text!r}…"
        self.retrieve(self.request)

    @work(thread=True, exclusive=True, group="query", exit_on_error=False)
    def retrieve(self, request: Request) -> None:
        if self.sqlite:
            self._retrieve_sqlite(request)
            return
        memory = self.app.memories.get(self.store, self.agent)  # type: ignore[attr-defined]
        if index_pending(memory.graph, memory.agent_name):  # a large store's first query
            note = f"building the keyword index (once per store state), then {request.text!r}…"
            self.app.call_from_thread(setattr, self.results, "border_title", note)
        explanation = explain_retrieval(
            memory.graph,
            memory.agent_name,
            memory.rel_tables(),
            request.text,
            profile=request.profile,
            max_nodes=request.max_nodes,
            similarity_threshold=request.threshold,
        )
        subgraph = explanation.subgraph
        contexts = (subgraph.to_llm_context(), subgraph.to_llm_context(chronological=True))
        self.post_message(self.Answered(request, subgraph, contexts, explanation))

    def _retrieve_sqlite(self, request: Request) -> None:
        """The amplihack-rs profile on the SQLite store (``ranked`` reads graph stores)."""
        graph = rs_sqlite_retrieve(self.store, self.agent, request.text, profile=request.profile,
                                   max_nodes=request.max_nodes,
                                   similarity_threshold=request.threshold)  # fmt: skip
        why = Explanation(request.profile, graph, note="ranked reads graph stores only")
        texts = (graph.to_llm_context(), graph.to_llm_context(chronological=True))
        self.post_message(self.Answered(request, graph, texts, why))

    def on_query_screen_answered(self, message: Answered) -> None:
        if message.request != self.request:
            return
        self.answer = message
        graph = message.subgraph
        facts, edges = counted(len(graph.nodes), "fact"), counted(len(graph.edges), "edge")
        self.results.show(graph, f"{message.request.profile}: {facts} · {edges}")
        self.query_one(MissedList).show(message.explanation)
        self._show_context()
        self.results.focus()
        if self._unsaved is not None:
            # Saved once the answer is shown, so the file work never slows the query.
            self.save_history(self._unsaved)
            self._unsaved = None

    def _show_context(self) -> None:
        if self.answer is not None:
            self.context.show(self.answer.contexts[self.chronological], self.chronological)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if report_failed_worker(event) and event.worker.group == "query":
            self.results.border_title = "the query failed"

    # -- history --------------------------------------------------------------------------
    @work(thread=True, exclusive=True, group="history", exit_on_error=False)
    def load_history(self) -> None:
        self.post_message(self.HistoryLoaded(self.history.load()))

    @work(thread=True, group="history-save", exit_on_error=False)
    def save_history(self, entry: HistoryEntry) -> None:
        with _HISTORY_LOCK:
            self.post_message(self.HistoryLoaded(self.history.add(entry)))

    def on_query_screen_history_loaded(self, message: HistoryLoaded) -> None:
        self.query_one(HistoryList).set_entries(message.entries)

    @on(Input.Changed, "#query")
    def narrow_history(self, event: Input.Changed) -> None:
        self.query_one(HistoryList).narrow(event.value)

    @on(Input.Submitted, "#query")
    def submitted(self, event: Input.Submitted) -> None:
        text = event.value.strip()
        if text:
            self.run_query(text)
            self._unsaved = HistoryEntry(text, self.agent, str(self.store))

    @on(HistoryList.Chosen)
    def rerun(self, message: HistoryList.Chosen) -> None:
        query = self.query_one("#query", Input)
        query.value = message.entry.query
        self.run_query(message.entry.query)
        self._unsaved = message.entry

    # -- opening a fact ---------------------------------------------------------------------
    @on(Tree.NodeSelected, "#results")
    def selected(self, event: Tree.NodeSelected[str | None]) -> None:
        self._open(event.node.data)

    def _open(self, node_id: str | None) -> None:
        if node_id:
            self.app.open_node(NodeRef(self.store, "SemanticMemory", node_id))  # type: ignore[attr-defined]

    # -- commands -------------------------------------------------------------------------
    def action_open_result(self) -> None:
        missed = self.query_one(MissedList)
        self._open(missed.cursor_id() if missed.has_focus else self.results.cursor_id())

    @on(MissedList.OptionSelected, "#missed")
    def missed_selected(self, event: MissedList.OptionSelected) -> None:
        self._open(event.option.id)

    def action_focus_missed(self) -> None:
        self.query_one(MissedList).focus()

    def action_why_not(self) -> None:
        """Walk the fact under the cursor (a result or a missed one) through the steps."""
        if self.answer is None:
            self.notify("Run a query first", severity="warning")
            return
        missed = self.query_one(MissedList)
        if missed.has_focus:
            fact = missed.nodes.get(missed.cursor_id() or "")
        else:
            by_id = {n.node_id: n for n in self.answer.subgraph.nodes}
            fact = by_id.get(self.results.cursor_id() or "")
        if fact is None:
            self.notify("Put the cursor on a fact first", severity="warning")
            return
        self.walk(self.answer.explanation, fact)

    @work(thread=True, exclusive=True, group="why", exit_on_error=False)
    def walk(self, explanation: Explanation, fact: KnowledgeNode) -> None:
        kept = any(n.node_id == fact.node_id for n in explanation.subgraph.nodes)
        self.post_message(self.Walked(fact, explanation.why_not(fact), kept))

    def on_query_screen_walked(self, message: Walked) -> None:
        profile = self.answer.request.profile if self.answer else self.profile
        self.app.push_screen(WhyNotScreen(profile, message.fact, message.steps, message.kept))

    def action_focus_query(self) -> None:
        self.query_one("#query", Input).focus()

    def action_focus_history(self) -> None:
        self.query_one(HistoryList).focus()

    def action_focus_results(self) -> None:
        self.results.focus()

    def action_focus_context(self) -> None:
        self.context.focus()

    def action_toggle_order(self) -> None:
        self.chronological = not self.chronological
        self._show_settings()
        self._show_context()

    def action_copy_context(self) -> None:
        if self.answer is None:
            self.notify("Nothing to copy yet: run a query first", severity="warning")
            return
        self.app.copy_to_clipboard(self.context.text)
        self.notify("Copied the LLM context to the clipboard")

    def action_close(self) -> None:
        self.dismiss()
