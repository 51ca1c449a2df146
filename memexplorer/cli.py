"""The command-line twin: the engine's operator functions for scripts and cron.

Each command lives in ``memexplorer.commands``; this module builds the parser
and turns the engine's errors into messages and exit codes. Results go to
stdout, diagnostics to stderr. Exit codes: 0 ok, 1 the operation failed, 2 bad
usage or input, 3 the store is locked by another process.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from memexplorer import __version__
from memexplorer.commands import register_all
from memexplorer.commands.common import EXIT_FAILED, EXIT_LOCKED, EXIT_OK, EXIT_USAGE
from memexplorer.engine.exceptions import (
    AgentNameError,
    ImportDataError,
    InvalidInputError,
    MemoryError,
    NotAStoreError,
    StoreLockedError,
    StoreNotFoundError,
    UnsupportedEngineError,
)

__all__ = ["EXIT_FAILED", "EXIT_LOCKED", "EXIT_OK", "EXIT_USAGE", "build_parser", "main"]

#: Errors that mean the caller asked for something wrong (exit 2), not a failure.
BAD_INPUT: tuple[type[MemoryError], ...] = (
    AgentNameError,
    ImportDataError,
    InvalidInputError,
    NotAStoreError,
    StoreNotFoundError,
    UnsupportedEngineError,
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="memexplorer",
        description="Explore and administer AI-agent memory stored in Kuzu.",
    )
    parser.add_argument("--version", action="version", version=f"memexplorer {__version__}")
    register_all(parser.add_subparsers(dest="command", metavar="COMMAND"))
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "handler", None):
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    try:
        return int(args.handler(args))
    except StoreLockedError as exc:
        print(f"error: {exc.title}: {exc.describe()}", file=sys.stderr)
        return EXIT_LOCKED
    except BAD_INPUT as exc:
        print(f"error: {exc.title}: {exc.describe()}", file=sys.stderr)
        return EXIT_USAGE
    except MemoryError as exc:
        print(f"error: {exc.title}: {exc.describe()}", file=sys.stderr)
        return EXIT_FAILED


if __name__ == "__main__":
    sys.exit(main())
