"""What every command shares: exit codes, the default home, output helpers."""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_LOCKED = 0, 1, 2, 3


def default_home() -> Path:
    """The amplihack home agents write to: ``~/.amplihack``."""
    return Path.home() / ".amplihack"


def print_json(payload: Any) -> None:
    """Results go to stdout, as one indented JSON document."""
    print(json.dumps(payload, indent=2, default=str))


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
        TextColumn("{task.description}"),
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
