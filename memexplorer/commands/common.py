"""What every command shares: exit codes, the default home, output helpers."""

from __future__ import annotations

import json
import sys
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
