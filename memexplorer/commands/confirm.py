"""Asking the operator before a destructive command runs."""

from __future__ import annotations

import sys

__all__ = ["ask"]


def ask(question: str) -> bool | None:
    """y/N on stderr, answer read from stdin; None when stdin is not a terminal
    (a script must say --yes instead of being asked)."""
    if not sys.stdin.isatty():
        return None
    print(f"{question} [y/N] ", end="", file=sys.stderr, flush=True)
    answer = sys.stdin.readline().strip().lower()
    return answer in ("y", "yes")
