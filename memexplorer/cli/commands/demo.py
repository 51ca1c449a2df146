"""``memexplorer demo``: write a demo home once, then open the app on it."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from memexplorer.cli.command_classes import Args, command
from memexplorer.cli.commands import stats
from memexplorer.cli.commands.options import home_option


def demo_home() -> Path:
    """Where the demo home lives: the user's cache folder, never ~/.amplihack."""
    from memexplorer.storage.user_folders import cache_folder

    return cache_folder() / "demo" / ".amplihack"


@command("demo", "write a demo home (once) and open the app on it")
@home_option("where to write it (default: the user cache folder)")
@click.option("--stats", "stats_only", is_flag=True,
              help="print its stores' counts instead of opening the app")  # fmt: skip
def demo(args: Args) -> int:
    from memexplorer.operator.demo import write_demo_home

    home = Path(args.home).expanduser() if args.home else demo_home()
    if not home.exists():
        write_demo_home(home)
        print(f"Wrote a demo home at {home}", file=sys.stderr)
    if args.stats_only:
        args.path, args.json, args.wide = str(home), False, False
        return stats.stats.handler(args)
    from memexplorer.cli.commands.open_app import run_app

    return run_app(str(home))
