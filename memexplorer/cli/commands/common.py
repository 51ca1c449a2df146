"""What every command shares: exit codes, the default home, output helpers."""

from __future__ import annotations

import json
import os
import shlex
import sys
import threading
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.console import Console, JustifyMethod
    from rich.text import Text

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_LOCKED = 0, 1, 2, 3
#: 128 + SIGPIPE: what a shell reports for a program whose reader closed the pipe.
EXIT_PIPE = 141
#: 128 + SIGINT: what a shell reports for a program stopped with ctrl+c.
EXIT_INTERRUPTED = 130


def default_home() -> Path:
    """The amplihack home agents write to: ``~/.amplihack``."""
    return Path.home() / ".amplihack"


def print_json(payload: Any) -> None:
    """Results go to stdout, as one indented JSON document."""
    print(json.dumps(payload, indent=2, default=str))


#: Width of text tables written to a pipe or file: no row is ever wrapped into
#: cells, so `grep` and `less -S` see one line per row.
PIPED_WIDTH = 4096


def output_console(*, wide: bool = False) -> Console:
    """The console text results are printed on.

    It fits the terminal; piped (or with ``wide``) it never wraps a row. A reader
    that goes away raises BrokenPipeError for :func:`memexplorer.cli.main.main` to end
    quietly, instead of rich's own exit with status 1. Emoji codes stay text: a path
    or a name holding ``:fire:`` is shown as stored, and rich never loads its emoji
    table (2-5 ms of ``memexplorer stats``, issue 17).
    """
    from rich.console import Console

    class _ResultConsole(Console):
        def on_broken_pipe(self) -> None:
            self.quiet = True
            raise BrokenPipeError

    if wide or not sys.stdout.isatty():
        width = int(os.environ.get("COLUMNS") or 0) or PIPED_WIDTH
        return _ResultConsole(width=width, emoji=False)
    return _ResultConsole(emoji=False)


def literal(value: object) -> Text:
    """A value read from a store or the disk (a path, an agent or table name) as a
    table cell or line part that rich shows character for character: a string would be
    read as markup, so ``[bold]`` would vanish and ``[/]`` raise MarkupError, and
    rich.markup.escape still doubles a trailing backslash."""
    from rich.text import Text

    return Text(str(value))


def print_table(
    title: str,
    columns: Sequence[tuple[str, JustifyMethod]],
    rows: Iterable[Sequence[object]],
) -> Console:
    """``title`` on one line as it is (it names paths: no markup, no highlighting, no
    wrapping), then a table of ``columns`` (name, justify) whose cells are shown as
    :func:`literal` text, or as styled when one is a Text already. Returns the
    console, for the lines that follow the table."""
    from rich.table import Table
    from rich.text import Text

    console = output_console()
    console.print(title, highlight=False, markup=False, soft_wrap=True)
    table = Table(show_edge=False)
    for name, justify in columns:
        table.add_column(name, justify=justify)
    for row in rows:
        table.add_row(*(cell if isinstance(cell, Text) else literal(cell) for cell in row))
    console.print(table)
    return console


def undo_command(backup: Path) -> str:
    """The command that restores ``backup``, as it works in a script: quoted, and
    with --yes (without a terminal, restore refuses to ask)."""
    return f"memexplorer restore {shlex.quote(str(backup))} --yes"


def warn(message: str) -> None:
    """Diagnostics go to stderr, so stdout stays parseable."""
    print(f"warning: {message}", file=sys.stderr)


@contextmanager
def progress(description: str) -> Iterator[None]:
    """A transient progress bar on stderr while slow work runs, only on a terminal.

    The engine's bulk calls report no steps, so the bar pulses with the elapsed
    time; it appears after a second, so quick commands print nothing extra.
    """
    if not sys.stderr.isatty():
        yield
        return
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    bar = Progress(
        TextColumn("{task.description}", markup=False),  # it names agents and paths
        BarColumn(),
        TimeElapsedColumn(),
        console=Console(stderr=True),
        transient=True,
    )
    bar.add_task(description, total=None)
    timer = threading.Timer(1.0, bar.start)
    timer.start()
    try:
        yield
    finally:
        timer.cancel()
        bar.stop()
