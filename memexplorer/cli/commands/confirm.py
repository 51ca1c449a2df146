"""Asking the operator before a destructive command runs."""

from __future__ import annotations

import sys

from memexplorer.cli.commands.common import EXIT_OK, EXIT_USAGE

__all__ = ["ask", "refusal"]


def ask(question: str) -> bool | None:
    """y/N on stderr, answer read from stdin; None when stdin is not a terminal
    (a script must say --yes instead of being asked)."""
    if not sys.stdin.isatty():
        return None
    print(f"{question} [y/N] ", end="", file=sys.stderr, flush=True)
    answer = sys.stdin.readline().strip().lower()
    return answer in ("y", "yes")


def refusal(question: str, verb: str) -> int | None:
    """Ask ``question``; None when the operator said yes, else the exit code the
    command returns (EXIT_USAGE when stdin is not a terminal, EXIT_OK for no), having said why.
    ``verb`` names the write in the refusal: "refusing to <verb> without --yes"."""
    answer = ask(question)
    if answer is None:
        print(f"error: refusing to {verb} without --yes: stdin is not a terminal, so nobody "
              "can confirm (nothing was changed)", file=sys.stderr)  # fmt: skip
        return EXIT_USAGE
    if not answer:
        print("nothing was changed", file=sys.stderr)
        return EXIT_OK
    return None
