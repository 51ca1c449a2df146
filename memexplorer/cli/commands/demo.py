"""``memexplorer demo``: write a demo home once, then open the app on it."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from memexplorer.cli.commands import stats


def demo_home() -> Path:
    """Where the demo home lives: the user's cache folder, never ~/.amplihack."""
    from memexplorer.storage.user_folders import cache_folder

    return cache_folder() / "demo" / ".amplihack"


def run(args: argparse.Namespace) -> int:
    from memexplorer.operator.demo import write_demo_home

    home = Path(args.home).expanduser() if args.home else demo_home()
    if not home.exists():
        write_demo_home(home)
        print(f"Wrote a demo home at {home}", file=sys.stderr)
    if args.stats:
        args.path, args.json = str(home), False
        return stats.run(args)
    from memexplorer.cli.commands.open_app import run_app

    return run_app(str(home))


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("demo", help="write a demo home (once) and open the app on it")
    parser.add_argument("--home", help="where to write it (default: the user cache folder)")
    parser.add_argument(
        "--stats", action="store_true", help="print its stores' counts instead of opening the app"
    )
    parser.set_defaults(handler=run)
