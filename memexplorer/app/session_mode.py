"""How the app refuses a write in a session that may not write.

``memexplorer serve`` (unless ``--allow-writes``) sets ``MEMEXPLORER_READ_ONLY=1``
in the environment of every app it launches. The engine's write gate
(operator/write_gate.py) then refuses every write; this module lets the app say so
up front — in its headers and when the operator reaches for a write — instead
of offering a switch, a clean or an import that can only fail.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from memexplorer.operator.read_only_session import read_only_reason, writes_disabled

if TYPE_CHECKING:
    from textual.dom import DOMNode

_Action = TypeVar("_Action", bound=Callable[..., Any])

__all__ = ["refuse_in_read_only_session", "write_action"]


def refuse_in_read_only_session(node: DOMNode, action: str) -> bool:
    """Say why ``action`` is not offered and return True in a read-only session;
    return False (and say nothing) when the session may write."""
    if not writes_disabled():
        return False
    node.notify(f"{action} is not available: {read_only_reason()}", title="Read-only session",
                severity="warning", timeout=8)  # fmt: skip
    return True


def write_action(action: str) -> Callable[[_Action], _Action]:
    """Decorate a screen's action method that writes: in a read-only session it says
    why ``action`` is not available instead of running."""

    def decorate(method: _Action) -> _Action:
        @functools.wraps(method)
        def guarded(self: DOMNode, *args: object, **kwargs: object) -> object:
            if refuse_in_read_only_session(self, action):
                return None
            return method(self, *args, **kwargs)

        return guarded  # type: ignore[return-value]

    return decorate
