"""What a new flat memory may hold, checked before anything is written.

Both backends refuse the same input with the same errors: ids that are empty,
too long or hold control characters, blank content, an importance outside
0-10 and a confidence outside 0-1.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from memexplorer.storage.exceptions import InvalidInputError

if TYPE_CHECKING:
    from memexplorer.memory.flat_store_base import Learning

__all__ = ["check_learning"]

_MAX_ID = 256
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def _check_id(value: object, what: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise InvalidInputError(f"The {what} is empty", hint=f"Give a non-empty {what}.")
    if len(value) > _MAX_ID or _CONTROL.search(value):
        raise InvalidInputError(
            f"The {what} {value[:40]!r} is too long or holds control characters",
            hint=f"Use a {what} of at most {_MAX_ID} printable characters.",
        )
    return value


def check_learning(learning: Learning) -> None:
    """Refuse bad input before anything is written."""
    content, importance, confidence = learning.content, learning.importance, learning.confidence
    _check_id(learning.session_id, "session id")
    _check_id(learning.agent_id, "agent id")
    if not isinstance(content, str) or not content.strip():
        raise InvalidInputError("The memory content is empty", hint="Give the text to remember.")
    if importance is not None and (
        isinstance(importance, bool) or not isinstance(importance, int) or not 0 <= importance <= 10
    ):
        raise InvalidInputError(
            f"Importance {importance!r} is outside 0-10", hint="Give a whole number from 0 to 10."
        )
    if confidence is not None and not (
        isinstance(confidence, int | float) and 0.0 <= confidence <= 1.0
    ):
        raise InvalidInputError(
            f"Confidence {confidence!r} is outside 0-1", hint="Give a number from 0.0 to 1.0."
        )
