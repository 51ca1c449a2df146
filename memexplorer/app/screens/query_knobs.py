"""The query box's asking half: the knobs (max_nodes, the similarity threshold, the
retrieval profile), the line that shows them, and running a request in a worker.

Kept apart from the query screen so the screen stays about showing the answer:
each knob changes one setting and asks again.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from rich.text import Text
from textual import work
from textual.message import Message
from textual.widgets import Static

from memexplorer.app.profile_choices import ProfileChoices
from memexplorer.app.screens.operator_screen import OperatorScreen
from memexplorer.app.screens.query_retrieval import Answer, Request, retrieve_answer
from memexplorer.app.widgets.query_results import QueryResults
from memexplorer.memory.retrieval_profiles import PROFILES
from memexplorer.operator.query_history import HistoryError

#: The max_nodes values ``+`` and ``-`` step through (20 is the library's default).
MAX_NODES_STEPS = (1, 5, 10, 20, 30, 50, 100, 200)
THRESHOLD_STEP = 0.05


class QueryKnobs(OperatorScreen[None]):
    """Asks an agent's retrieval with the knobs; the query screen shows the answers."""

    store: Path
    agent: str
    #: amplihack-rs's SQLite store: its agent retrieves with the amplihack-rs profile.
    sqlite: bool
    max_nodes: int
    threshold: float
    profile: str
    chronological: bool
    choices: ProfileChoices
    #: The last request asked (the answer shown is the one for it).
    request: Request | None

    @dataclass
    class Answered(Message):
        answer: Answer

    def run_query(self, text: str) -> None:
        """Retrieve for ``text`` with the current knobs."""
        if not text.strip():
            return
        self.request = Request(text.strip(), self.max_nodes, self.threshold, self.profile)
        # A title, not the animated loading indicator: its frames would take the GIL
        # from the worker (kuzu hands rows to Python one call at a time).
        self.query_one(QueryResults).border_title = f"searching for {self.request.text!r}…"
        self.retrieve(self.request)

    @work(thread=True, exclusive=True, group="query", exit_on_error=False)
    def retrieve(self, request: Request) -> None:
        def indexing(note: str) -> None:
            self.app.call_from_thread(setattr, self.query_one(QueryResults), "border_title", note)

        answer = retrieve_answer(self.session, self.store, self.agent, request,
                                 sqlite=self.sqlite, indexing=indexing)  # fmt: skip
        self.post_message(self.Answered(answer))

    def show_settings(self) -> None:
        mode = self.session.mode(self.store)
        self.sub_title = f"profile {self.profile} · {mode} · {self.agent} · {self.store}"
        order = "chronological" if self.chronological else "by confidence"
        self.query_one("#settings", Static).update(
            Text(
                f"{self.profile} · max {self.max_nodes} nodes · "
                f"similarity ≥ {self.threshold:.2f} · {order}"
            )
        )

    # -- the knobs ------------------------------------------------------------------------
    def action_more_nodes(self) -> None:
        self._set_max_nodes(1)

    def action_fewer_nodes(self) -> None:
        self._set_max_nodes(-1)

    def _set_max_nodes(self, step: int) -> None:
        below = [n for n in MAX_NODES_STEPS if n < self.max_nodes]
        above = [n for n in MAX_NODES_STEPS if n > self.max_nodes]
        if step > 0 and above:
            self.max_nodes = above[0]
        elif step < 0 and below:
            self.max_nodes = below[-1]
        self._rerun()

    def action_raise_threshold(self) -> None:
        self.threshold = min(1.0, round(self.threshold + THRESHOLD_STEP, 2))
        self._rerun()

    def action_lower_threshold(self) -> None:
        self.threshold = max(0.0, round(self.threshold - THRESHOLD_STEP, 2))
        self._rerun()

    def action_switch_profile(self) -> None:
        """The next profile; remembered for this store, then the query runs again.
        amplihack-rs's SQLite store has one: library and ranked read graph stores."""
        if self.sqlite:
            self.notify(
                "This is amplihack-rs's SQLite store: its agent's own retrieval "
                "(amplihack-rs) is the one that reads it; library and ranked read graph stores.",
                title="One profile here",
            )
            return
        self.profile = PROFILES[(PROFILES.index(self.profile) + 1) % len(PROFILES)]
        try:
            self.choices.set(self.store, self.profile)
        except HistoryError as exc:
            self.notify(str(exc), title=exc.title, severity="warning")
        self._rerun()

    def _rerun(self) -> None:
        self.show_settings()
        if self.request is not None:
            self.run_query(self.request.text)
