"""``memexplorer diff A B``: read both sides, check they are one agent's, compare.

The sides are read by :mod:`.diff_sides` (read-only) and compared by
:mod:`.memory_diff`; this module decides whose memory a store side holds (the
agent the other side names, when none is given) and refuses to compare two
agents' memories unless asked to.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memexplorer.operator.diff_sides import DiffSide, read_side, side_agent
from memexplorer.operator.memory_diff import MemoryDiff, diff_exports
from memexplorer.operator.snapshots import snapshots_folder
from memexplorer.storage.backend_choice import HomeUnavailableError
from memexplorer.storage.collector import collector_paused
from memexplorer.storage.exceptions import InvalidInputError

__all__ = ["DiffReport", "diff_memory"]

#: The shape of ``--json`` (docs/diff.md); raised when it changes incompatibly.
DIFF_FORMAT = 1


@dataclass(frozen=True)
class DiffReport:
    a: DiffSide
    b: DiffSide
    diff: MemoryDiff

    @property
    def same_agent(self) -> bool:
        return not self.a.agent or not self.b.agent or self.a.agent == self.b.agent

    def to_dict(self) -> dict[str, Any]:
        return {
            "diff_format": DIFF_FORMAT,
            "a": self.a.describe(),
            "b": self.b.describe(),
            "same_agent": self.same_agent,
            **self.diff.to_dict(),
        }


def diff_memory(
    a: str | Path,
    b: str | Path,
    *,
    agent: str | None = None,
    home: str | Path | None = None,
    other_agent: bool = False,
) -> DiffReport:
    """What changed from ``a`` (the earlier) to ``b``. Two agents' memories are refused
    unless ``other_agent``: their ids never match, so every fact would read as new."""
    # Millions of small records: the cyclic collector would only slow the reading.
    with collector_paused():
        named = agent or side_agent(a) or side_agent(b)
        try:
            folder: Path | None = snapshots_folder(home)
        except HomeUnavailableError:
            folder = None
        first = read_side(a, agent=named, home=home, snapshots=folder)
        second = read_side(b, agent=named or first.agent or None, home=home, snapshots=folder)
        if first.agent and second.agent and first.agent != second.agent and not other_agent:
            raise InvalidInputError(
                f"These are two agents' memories: A ({first.path}) holds agent {first.agent!r} "
                f"and B ({second.path}) holds agent {second.agent!r}; nothing was compared",
                hint="Compare two points of one agent, or add --other-agent to compare anyway.",
            )
        return DiffReport(first, second, diff_exports(first.data, second.data))
