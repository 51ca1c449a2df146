"""The query box's knobs: max_nodes, the similarity threshold and the retrieval profile.

Why a mixin: each knob changes one setting and runs the query again; kept apart
from the screen so the screen stays about asking and showing.
"""

from __future__ import annotations

from pathlib import Path

from memexplorer.app.profile_choices import ProfileChoices
from memexplorer.memory.retrieval_profiles import PROFILES
from memexplorer.operator.query_history import HistoryError

#: The max_nodes values ``+`` and ``-`` step through (20 is the library's default).
MAX_NODES_STEPS = (1, 5, 10, 20, 30, 50, 100, 200)
THRESHOLD_STEP = 0.05


class QueryKnobs:
    """Actions for a screen with ``max_nodes``, ``threshold``, ``profile`` and a request."""

    store: Path
    max_nodes: int
    threshold: float
    profile: str
    choices: ProfileChoices

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
        """The next profile; remembered for this store, then the query runs again."""
        self.profile = PROFILES[(PROFILES.index(self.profile) + 1) % len(PROFILES)]
        try:
            self.choices.set(self.store, self.profile)
        except HistoryError as exc:
            self.notify(str(exc), title=exc.title, severity="warning")  # type: ignore[attr-defined]
        self._rerun()

    def _rerun(self) -> None:
        self._show_settings()  # type: ignore[attr-defined]
        request = self.request  # type: ignore[attr-defined]
        if request is not None:
            self.run_query(request.text)  # type: ignore[attr-defined]
