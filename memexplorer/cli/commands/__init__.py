"""The CLI's commands, one module each; every module exposes ``register``.

A command parses its arguments, calls engine functions and prints the result.
It holds no logic of its own, so the TUI can call the same engine functions.
"""

from __future__ import annotations

import argparse
from importlib import import_module

#: Modules under memexplorer.cli.commands, in the order ``--help`` lists them.
COMMAND_MODULES = (
    "stats", "demo", "transfer", "tree", "audit", "query", "chain", "correct", "clean", "compact",
    "restore", "backups", "diff", "grep", "duplicates", "serve", "migrate", "engines",
)  # fmt: skip


def register_all(subparsers: argparse._SubParsersAction) -> None:
    for name in COMMAND_MODULES:
        import_module(f"memexplorer.cli.commands.{name}").register(subparsers)
