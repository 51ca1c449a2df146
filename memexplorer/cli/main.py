"""The command-line twin: the engine's operator functions for scripts and cron.

Each command lives in ``memexplorer.cli.commands``; this module builds the
command line (click) and turns the engine's errors into messages and exit codes. Results go to
stdout, diagnostics to stderr. Exit codes: 0 ok, 1 the operation failed (writes
disabled by MEMEXPLORER_READ_ONLY=1 among them), 2 bad usage or input, 3 the store
is locked by another process (the database's own lock, or another memexplorer
writer holding the store's write gate: the message names its PID), 141 the reader
of stdout went away (``| head``), as for a program stopped by SIGPIPE.
"""

from __future__ import annotations

import gc
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn

import click

from memexplorer import __version__
from memexplorer.cli.command_classes import LazyGroup
from memexplorer.cli.commands import COMMANDS
from memexplorer.cli.commands.common import (
    EXIT_FAILED,
    EXIT_INTERRUPTED,
    EXIT_LOCKED,
    EXIT_OK,
    EXIT_PIPE,
    EXIT_USAGE,
)
from memexplorer.cli.commands.open_app import run_app
from memexplorer.operator.terminal_text import terminal_safe
from memexplorer.storage.exceptions import (
    AgentNameError,
    ImportDataError,
    InvalidInputError,
    MemoryError,
    NotAStoreError,
    StoreBusyError,
    StoreLockedError,
    StoreNotFoundError,
    UnsupportedEngineError,
)

__all__ = [
    "EXIT_FAILED",
    "EXIT_LOCKED",
    "EXIT_OK",
    "EXIT_PIPE",
    "EXIT_USAGE",
    "build_cli",
    "main",
    "run",
]

#: Errors that mean the caller asked for something wrong (exit 2), not a failure.
BAD_INPUT: tuple[type[MemoryError], ...] = (
    AgentNameError,
    ImportDataError,
    InvalidInputError,
    NotAStoreError,
    StoreNotFoundError,
    UnsupportedEngineError,
)


def build_cli() -> LazyGroup:
    """The ``memexplorer`` command; its subcommands load when used (commands.COMMANDS)."""
    return LazyGroup(
        "memexplorer",
        lazy=COMMANDS,
        params=[click.Option(["--version"], is_flag=True, expose_value=False, is_eager=True,
                             callback=_print_version, help="show the version and exit")],
        help="Explore and administer AI-agent memory stored in Kuzu, LadybugDB and SQLite. "
        "`memexplorer [PATH]` opens the app on a store, an agent folder or a home "
        "(default ~/.amplihack); the commands below do the same work for scripts.",
        subcommand_metavar="[PATH] | COMMAND ...",
        context_settings={"help_option_names": ["-h", "--help"]},
    )  # fmt: skip


def _print_version(ctx: click.Context, param: click.Parameter, value: bool) -> None:
    if value:
        print(f"memexplorer {__version__}")
        ctx.exit(EXIT_OK)


def _run_command(argv: list[str]) -> int:
    """Parse ``argv`` and run its command; a usage error (said with what was wrong,
    where, and the --help to read) or --help and --version end the process with
    SystemExit, 2 for bad usage, as they always have."""
    cli = build_cli()
    try:
        with cli.make_context("memexplorer", argv) as ctx:
            return int(cli.invoke(ctx))
    except click.exceptions.Exit as done:
        raise SystemExit(done.exit_code) from None
    except click.UsageError as wrong:
        wrong.show()
        raise SystemExit(EXIT_USAGE) from None


def _neither_command_nor_path(word: str) -> int:
    """``memexplorer stast``: no command and no file of that name. Say so, with the
    command meant when the word is close to one, rather than open the app on nothing."""
    import difflib  # only on this error: not on every command's start

    shown = terminal_safe(word)
    print(f"memexplorer: {shown!r} is not a command, and no file or folder has that name.",
          file=sys.stderr)  # fmt: skip
    close = difflib.get_close_matches(word, list(COMMANDS), n=1, cutoff=0.75)
    if close:
        print(f"Did you mean `memexplorer {close[0]}`? (`memexplorer --help` lists the "
              "commands.)", file=sys.stderr)  # fmt: skip
    else:
        print("Give a store, an agent folder or a home to open in the app; "
              "`memexplorer --help` lists the commands.", file=sys.stderr)  # fmt: skip
    return EXIT_USAGE


def _reader_went_away() -> int:
    """``memexplorer ... | head``: the reader closed the pipe. End quietly with the
    status a shell gives a program stopped by SIGPIPE, and point stdout at
    /dev/null so the interpreter's final flush does not complain either."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
    return EXIT_PIPE


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    # `memexplorer` and `memexplorer PATH` open the app; anything else is a command.
    if not argv or (len(argv) == 1 and not argv[0].startswith("-")
                    and argv[0] not in COMMANDS):  # fmt: skip
        if argv and not Path(argv[0]).expanduser().exists():
            return _neither_command_nor_path(argv[0])
        return run_app(argv[0] if argv else None)
    try:
        code = _run_command(argv)
        sys.stdout.flush()  # a closed pipe shows here, inside the handler below
        return code
    except BrokenPipeError:
        return _reader_went_away()
    except KeyboardInterrupt:
        # The operator's stop: one line instead of a traceback, and the shell's code.
        print(f"stopped (ctrl+c): memexplorer {argv[0]} did not finish", file=sys.stderr)
        return EXIT_INTERRUPTED
    except (StoreLockedError, StoreBusyError) as exc:
        _print_error(exc)
        return EXIT_LOCKED
    except BAD_INPUT as exc:
        _print_error(exc)
        return EXIT_USAGE
    except MemoryError as exc:
        _print_error(exc)
        return EXIT_FAILED


def run() -> NoReturn:
    """The process's entry (the ``memexplorer`` script, ``python -m memexplorer``):
    :func:`main`, then the end of the process.

    At exit Python walks every object the command's imports made, in several full
    collections, only to free memory the system takes back anyway: 15-25 ms of
    ``memexplorer stats`` on the demo home (issue 17). ``gc.freeze()`` puts them
    out of the collector's sight first. An object still alive then is not finalized
    at exit, which Python never promises; memexplorer closes its stores and files
    in ``with`` blocks, and the standard streams are flushed as always. Callers
    inside a process (tests) use :func:`main`, which leaves the collector alone.
    """
    try:
        code = main()
    finally:
        gc.freeze()
    sys.exit(code)


def _print_error(exc: MemoryError) -> None:
    """The message on stderr; a value it quotes (a memory id, a path) may hold escape
    sequences, which are shown, never obeyed (line breaks of the message kept)."""
    lines = f"error: {exc.title}: {exc.describe()}".split("\n")
    print("\n".join(terminal_safe(line) for line in lines), file=sys.stderr)


if __name__ == "__main__":
    run()
