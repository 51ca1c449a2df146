"""The query box: what one agent's retrieval returns for a text, and why.

It runs the engine's own retrieval (through the app's MemoryPool, on the store
the browsers already hold open) with the agent's profile (``library`` by default,
``amplihack-rs``, or memexplorer's ``ranked``), so the operator sees exactly what
the agent would be shown: the facts, why each was chosen, the edges among them
and the ``to_llm_context()`` text; beside it the facts ``ranked`` finds that the
agent's retrieval left out, each with the step that cut it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widgets import Footer, Header, Input, Static, Tree
from textual.worker import Worker

from memexplorer.app.operator_session import OperatorSession
from memexplorer.app.profile_choices import ProfileChoices
from memexplorer.app.screens.query_commands import QUERY_COMMANDS
from memexplorer.app.screens.query_knobs import QueryKnobs
from memexplorer.app.screens.query_retrieval import Answer, Request
from memexplorer.app.screens.saved_queries import SavedQueries
from memexplorer.app.screens.why_not_screen import WhyNotScreen
from memexplorer.app.widgets.context_pane import ContextPane
from memexplorer.app.widgets.history_list import HistoryList
from memexplorer.app.widgets.missed_list import MissedList
from memexplorer.app.widgets.node_ref import NodeRef
from memexplorer.app.widgets.query_results import QueryResults
from memexplorer.app.widgets.worker_errors import report_failed_worker
from memexplorer.memory.knowledge import KnowledgeNode
from memexplorer.memory.retrieval_explain import Explanation, Step
from memexplorer.memory.retrieval_profiles import DEFAULT_PROFILE
from memexplorer.operator.query_history import HistoryEntry
from memexplorer.operator.rs_sqlite_transfer import is_rs_store
from memexplorer.operator.wording import counted


class QueryScreen(QueryKnobs, SavedQueries):
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
    CSS_PATH = "query_screen.tcss"

    @dataclass
    class Walked(Message):
        fact: KnowledgeNode
        steps: list[Step]
        kept: bool

    def __init__(self, session: OperatorSession, store: Path, agent: str) -> None:
        super().__init__(session, store)
        self.agent = agent
        self.choices = ProfileChoices()
        self.sqlite = is_rs_store(store)
        # On the SQLite store only amplihack-rs runs, whatever an earlier p kept for it.
        self.profile = "amplihack-rs" if self.sqlite else self.choices.get(store, DEFAULT_PROFILE)
        self.max_nodes = 20
        self.threshold = 0.3
        self.chronological = False
        self.request: Request | None = None
        self.answer: Answer | None = None
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
        self.show_settings()
        self.query_one("#query", Input).focus()
        self.load_history()

    @property
    def results(self) -> QueryResults:
        return self.query_one(QueryResults)

    @property
    def context(self) -> ContextPane:
        return self.query_one(ContextPane)

    # -- the answer -----------------------------------------------------------------------
    def on_query_knobs_answered(self, message: QueryKnobs.Answered) -> None:
        answer = message.answer
        if answer.request != self.request:
            return
        self.answer = answer
        graph = answer.subgraph
        facts, edges = counted(len(graph.nodes), "fact"), counted(len(graph.edges), "edge")
        self.results.show(graph, f"{answer.request.profile}: {facts} · {edges}")
        self.query_one(MissedList).show(answer.explanation)
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
        if report_failed_worker(event, self.session) and event.worker.group == "query":
            self.results.border_title = "the query failed"

    # -- history --------------------------------------------------------------------------
    def on_saved_queries_history_loaded(self, message: SavedQueries.HistoryLoaded) -> None:
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
            self.session.open_node(NodeRef(self.store, "SemanticMemory", node_id))

    # -- commands -------------------------------------------------------------------------
    def action_open_result(self) -> None:
        missed = self.query_one(MissedList)
        self._open(missed.cursor_id() if missed.has_focus else self.results.cursor_id())

    @on(MissedList.OptionSelected, "#missed")
    def missed_selected(self, event: MissedList.OptionSelected) -> None:
        self._open(event.option.id)

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

    def action_toggle_order(self) -> None:
        self.chronological = not self.chronological
        self.show_settings()
        self._show_context()

    def action_copy_context(self) -> None:
        if self.answer is None:
            self.notify("Nothing to copy yet: run a query first", severity="warning")
            return
        self.app.copy_to_clipboard(self.context.text)
        self.notify("Copied the LLM context to the clipboard")

    def action_close(self) -> None:
        self.dismiss()
