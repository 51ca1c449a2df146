"""Which facts of each group of duplicates a merge takes: the one kept (the newest
unless the operator chose another) and the others the operator left in."""

from __future__ import annotations

from memexplorer.operator.duplicates_grouping import DuplicateGroup

__all__ = ["MergeChoice"]


class MergeChoice:
    """The operator's choices, per group (a group is known by its newest fact's id)."""

    def __init__(self) -> None:
        self._kept: dict[str, str] = {}
        self._left_out: dict[str, set[str]] = {}

    def clear(self) -> None:
        """Forget every choice (the groups were found again)."""
        self._kept.clear()
        self._left_out.clear()

    def keep_of(self, group: DuplicateGroup) -> str:
        return self._kept.get(group.newest.memory_id, group.newest.memory_id)

    def keep(self, group: DuplicateGroup, memory_id: str) -> None:
        """Keep ``memory_id`` when the group is merged; a fact kept is in the merge."""
        self._kept[group.newest.memory_id] = memory_id
        self._left_out.get(group.newest.memory_id, set()).discard(memory_id)

    def is_in(self, group: DuplicateGroup, memory_id: str) -> bool:
        return memory_id not in self._left_out.get(group.newest.memory_id, set())

    def toggle(self, group: DuplicateGroup, memory_id: str) -> bool:
        """Put a fact out of the merge or back in; False for the kept fact, which stays."""
        if memory_id == self.keep_of(group):
            return False
        out = self._left_out.setdefault(group.newest.memory_id, set())
        out.symmetric_difference_update({memory_id})
        return True

    def others(self, group: DuplicateGroup) -> list[str]:
        """The facts the kept one supersedes: those in the merge, in the group's order."""
        keep = self.keep_of(group)
        return [f.memory_id for f in group.facts if f.memory_id != keep
                and self.is_in(group, f.memory_id)]  # fmt: skip
