"""Whether this session may write at all, and how headers and refusals say so.

``memexplorer serve`` (unless ``--allow-writes``) sets ``MEMEXPLORER_READ_ONLY=1``
in the environment of every app it launches. The write gate
(operator/write_gate.py) then refuses every write; the app says so up front
(memexplorer.app.session_mode) instead of offering a write that can only fail.
"""

from __future__ import annotations

import os

from memexplorer.operator.write_gate import READ_ONLY_ENV, writes_disabled

__all__ = ["READ_ONLY_ENV", "read_only_label", "read_only_reason", "served", "writes_disabled"]


def served() -> bool:
    """True when the app draws into a browser tab (textual-serve's web driver)."""
    return "web_driver" in os.environ.get("TEXTUAL_DRIVER", "")


def read_only_label() -> str:
    """What headers call a store open read-only: plain "read-only" when the operator
    may switch it to writing, else what keeps the whole session from writing."""
    if not writes_disabled():
        return "read-only"
    return "served read-only" if served() else "read-only session"


def read_only_reason() -> str:
    """Why this session may not write (only meaningful when :func:`writes_disabled`)."""
    if served():
        return (
            "this served session is read-only. Whoever started `memexplorer serve` can "
            "restart it with --allow-writes to allow writes from the browser."
        )
    return f"this session is read-only ({READ_ONLY_ENV}=1 is set)."
