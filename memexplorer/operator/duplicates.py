"""Find an agent's near-identical facts: groups to merge, newest first.

Facts a newer fact supersedes already are left out (their chain says what
replaced them), so a group that was merged is not listed again.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memexplorer.operator.duplicates_grouping import DuplicateGroup, group_duplicates
from memexplorer.operator.duplicates_threshold import DEFAULT_THRESHOLD, check_threshold
from memexplorer.operator.merge_store import AgentInStore, merge_store_path, read_facts
from memexplorer.storage.collector import collector_paused
from memexplorer.storage.progress import TaskControl

__all__ = ["DEFAULT_THRESHOLD", "DuplicatesReport", "check_threshold", "find_duplicates"]


@dataclass(frozen=True)
class DuplicatesReport(AgentInStore):
    """The groups of one agent at one threshold."""

    threshold: float
    facts: int
    superseded: int
    groups: tuple[DuplicateGroup, ...]

    @property
    def duplicates(self) -> int:
        """Facts a merge of every group would supersede."""
        return sum(len(group.facts) - 1 for group in self.groups)

    def to_dict(self) -> dict[str, Any]:
        return {
            **self.header(),
            "threshold": self.threshold,
            "facts": self.facts,
            "superseded": self.superseded,
            "duplicates": self.duplicates,
            "groups": [group.to_dict() for group in self.groups],
        }


def find_duplicates(
    store: str | Path,
    agent: str,
    threshold: float = DEFAULT_THRESHOLD,
    control: TaskControl | None = None,
) -> DuplicatesReport:
    """The agent's groups of current facts of one concept scoring >= ``threshold``
    pairwise (joined), read-only. ``control`` hears the facts read, then the facts
    compared and pairs scored, and may stop the search between chunks of them
    (:class:`.progress.OperationCancelled`)."""
    threshold = check_threshold(threshold)
    path = merge_store_path(store)
    with collector_paused():  # 100k facts' word sets: no stop-the-world scans meanwhile
        read = read_facts(path, agent, control)
        groups = group_duplicates(read.current(), threshold, control)
    return DuplicatesReport(
        store=path,
        agent=agent,
        engine=read.engine,
        writer=read.writer,
        threshold=threshold,
        facts=len(read.facts),
        superseded=len(read.superseded),
        groups=tuple(groups),
    )
