"""Asking the operator before a destructive command runs (click's confirm prompt)."""

from __future__ import annotations

import sys

import click

from memexplorer.cli.commands.common import EXIT_OK, EXIT_USAGE

__all__ = ["ask", "refusal"]


def ask(question: str) -> bool | None:
    """y/N on stderr, the answer read from stdin (an empty answer is no; anything but
    y, yes, n or no is asked again); None when stdin is not a terminal (a script
    must say --yes instead of being asked). Ctrl+C stops the command as anywhere."""
    if not sys.stdin.isatty():
        return None
    try:
        return click.confirm(question, default=False, prompt_suffix=" ", err=True)
    except click.Abort:
        raise KeyboardInterrupt from None


def refusal(question: str, verb: str, *, yes: bool = False) -> int | None:
    """None to go ahead (``yes``, or the operator said yes); else the exit code the
    command returns, having said why: EXIT_USAGE when stdin is not a terminal,
    EXIT_OK for no. ``verb`` names the write: "refusing to <verb> without --yes"."""
    if yes:
        return None
    answer = ask(question)
    if answer is None:
        print(f"error: refusing to {verb} without --yes: stdin is not a terminal, so nobody "
              "can confirm (nothing was changed)", file=sys.stderr)  # fmt: skip
        return EXIT_USAGE
    if not answer:
        print("nothing was changed", file=sys.stderr)
        return EXIT_OK
    return None
