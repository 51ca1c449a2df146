"""Opening the terminal app from the command line: ``memexplorer [PATH]`` and
``memexplorer demo``.

Here, not in cli.py, so a command that ends in the app (demo) needs nothing
from the module that builds the parser.
"""

from __future__ import annotations

import os
import sys

from memexplorer.cli.commands.common import EXIT_OK, EXIT_USAGE

__all__ = ["has_screen", "run_app"]


def has_screen() -> bool:
    """A terminal on stdin and stdout, or a web driver (memexplorer serve) instead."""
    return "TEXTUAL_DRIVER" in os.environ or (sys.stdin.isatty() and sys.stdout.isatty())


def run_app(path: str | None) -> int:
    """Open the terminal app on ``path`` (default: the settings' home, else ~/.amplihack).
    Problems in the settings file go to stderr too; the app carries on with defaults."""
    from memexplorer.app.config import load_config
    from memexplorer.app.explorer_app import create_app

    # Without a screen the app would wait on input that never comes, at full CPU.
    if not has_screen():
        print(
            "memexplorer: the app needs a terminal (stdin and stdout are not one).\n"
            "For scripts use the commands instead, e.g. `memexplorer stats PATH --json`; "
            "for a browser, `memexplorer serve PATH`.",
            file=sys.stderr,
        )
        return EXIT_USAGE
    config = load_config()
    for problem in config.problems:
        print(f"warning: {problem}", file=sys.stderr)
    create_app(path, config=config).run()
    return EXIT_OK
