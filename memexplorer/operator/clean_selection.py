"""What `clean` removes: a glob and optional filters, checked before any store opens.

The glob knows two wildcards, ``*`` (any run of characters) and ``?`` (one
character); every other character is literal. Brackets and braces are
refused rather than taken literally, because an operator who types them
expects shell-style classes and would delete something other than meant.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from memexplorer.memory.flat_model import parse_time
from memexplorer.operator.record_dicts import field_dict
from memexplorer.storage.exceptions import InvalidInputError

__all__ = ["BadSelectionError", "Selection", "compile_glob"]

_MAX_PATTERN = 256
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


class BadSelectionError(InvalidInputError):
    title = "Bad selection"
    hint = "Use * and ? as wildcards; see `memexplorer clean --help`."


def compile_glob(pattern: str) -> re.Pattern[str]:
    """The glob as an anchored regular expression (``*`` and ``?`` only)."""
    if not pattern or not pattern.strip():
        raise BadSelectionError("The pattern is empty; use '*' to match everything")
    if len(pattern) > _MAX_PATTERN:
        raise BadSelectionError(f"The pattern is longer than {_MAX_PATTERN} characters")
    if _CONTROL.search(pattern):
        raise BadSelectionError("The pattern contains control characters")
    odd = sorted(set(pattern) & set("[]{}"))
    if odd:
        raise BadSelectionError(
            f"The pattern {pattern!r} contains {' '.join(odd)}: only * and ? are wildcards here"
        )
    parts = (".*" if c == "*" else "." if c == "?" else re.escape(c) for c in pattern)
    return re.compile("".join(parts), re.DOTALL)


@dataclass(frozen=True)
class Selection:
    """Rows to clean: all conditions given must hold.

    ``pattern`` matches session ids in flat stores, ``concept`` in
    hierarchical and cognitive stores and ``experience_type`` in experience
    stores; ``*`` matches every row, also in tables without that column.
    """

    pattern: str = "*"
    agent: str | None = None
    table: str | None = None
    older_than_days: float | None = None
    ids: tuple[str, ...] = ()
    _regex: re.Pattern[str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_regex", compile_glob(self.pattern))
        days = self.older_than_days
        if days is not None and (not math.isfinite(days) or days < 0):
            raise BadSelectionError(f"--older-than must be 0 or more days, not {days}")
        if any(not str(i).strip() for i in self.ids):
            raise BadSelectionError("An empty id was given with --ids")
        if self.agent is not None and not self.agent.strip():
            raise BadSelectionError("The agent name is empty")

    @property
    def matches_all(self) -> bool:
        return self.pattern.strip("*") == "" and "*" in self.pattern

    def matches(self, value: Any) -> bool:
        if self.matches_all:
            return True
        return isinstance(value, str) and self._regex.fullmatch(value) is not None

    def cutoff(self, now: datetime) -> datetime | None:
        if self.older_than_days is None:
            return None
        return now - timedelta(days=self.older_than_days)

    def refuse_on_flat(self) -> None:
        """A flat store is cleaned by session: --agent, --table and --ids do not apply."""
        for flag, value in (("--agent", self.agent), ("--table", self.table)):
            if value is not None:
                raise BadSelectionError(
                    f"{flag} does not apply to a flat store, which is cleaned by session "
                    "(PATTERN is a session-id glob)"
                )
        if self.ids:
            raise BadSelectionError(
                "--ids does not apply to a flat store; name sessions with PATTERN"
            )

    def is_old(self, value: Any, cutoff: datetime | None) -> bool:
        """True when no age is asked for, or the value is a readable time before the cutoff."""
        if cutoff is None:
            return True
        moment = parse_time(value)
        return moment is not None and moment < cutoff

    def to_dict(self) -> dict[str, Any]:
        return field_dict(self, leave_out=("_regex",), ids=list(self.ids))
