"""The command-line twin: the engine's operator functions for scripts and cron.

It holds no logic of its own. Results go to stdout, diagnostics to stderr.
Exit codes: 0 ok, 1 the operation failed, 2 bad usage or input, 3 the store is
locked by another process.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from memexplorer import __version__
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
from memexplorer.engine.inspection import StoreSummary, summarize_store
from memexplorer.engine.stores import find_stores

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_LOCKED = 0, 1, 2, 3

_BAD_INPUT = (
    AgentNameError,
    ImportDataError,
    InvalidInputError,
    NotAStoreError,
    StoreNotFoundError,
    UnsupportedEngineError,
)


def _default_home() -> Path:
    return Path.home() / ".amplihack"


def _print_stats(summaries: list[StoreSummary]) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console()
    for summary in summaries:
        version = summary.storage_version if summary.storage_version is not None else "-"
        title = f"{summary.path}  [dim]{summary.kind} · {summary.engine} · storage {version}[/dim]"
        table = Table(title=title, title_justify="left", show_edge=False)
        tables = sorted({t for counts in summary.agents.values() for t in counts})
        longest = max((len(agent) for agent in summary.agents), default=5)
        table.add_column("agent", no_wrap=True, min_width=longest)
        for name in tables:
            table.add_column(name, justify="right")
        for agent, counts in sorted(summary.agents.items()):
            table.add_row(agent, *(f"{counts.get(t, 0):,}" for t in tables))
        console.print(table)
        if summary.absent_tables:
            console.print(f"  [dim]absent tables: {', '.join(summary.absent_tables)}[/dim]")
        console.print()


def cmd_stats(args: argparse.Namespace) -> int:
    root = Path(args.path).expanduser() if args.path else _default_home()
    stores = find_stores(root)
    summaries: list[StoreSummary] = []
    failures: list[MemoryError] = []
    for fmt in stores:
        try:
            summaries.append(summarize_store(fmt))
        except MemoryError as exc:
            if len(stores) == 1:
                raise
            failures.append(exc)
    if args.json:
        payload: dict[str, object] = {"stores": [s.to_dict() for s in summaries]}
        if failures:
            payload["errors"] = [
                {"path": str(getattr(e, "path", "")), "error": e.title, "message": e.message}
                for e in failures
            ]
        print(json.dumps(payload, indent=2))
    else:
        if not summaries:
            print(f"No memory stores found under {root}", file=sys.stderr)
        _print_stats(summaries)
    for exc in failures:
        print(f"warning: {exc.title}: {exc.message}", file=sys.stderr)
    return EXIT_FAILED if failures and not summaries else EXIT_OK


def _demo_home() -> Path:
    import os

    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return cache / "memexplorer" / "demo" / ".amplihack"


def cmd_demo(args: argparse.Namespace) -> int:
    from memexplorer.engine.demo import write_demo_home

    home = Path(args.home).expanduser() if args.home else _demo_home()
    if not home.exists():
        write_demo_home(home)
        print(f"Wrote a demo home at {home}", file=sys.stderr)
    args.path, args.json = str(home), False
    return cmd_stats(args)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="memexplorer",
        description="Explore and administer AI-agent memory stored in Kuzu.",
    )
    parser.add_argument("--version", action="version", version=f"memexplorer {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    stats = commands.add_parser(
        "stats", help="what each store under PATH is, and its counts per agent"
    )
    stats.add_argument(
        "path", nargs="?", help="a store, an agent folder or a home (default ~/.amplihack)"
    )
    stats.add_argument("--json", action="store_true", help="print JSON for scripts")
    stats.set_defaults(handler=cmd_stats)
    demo = commands.add_parser("demo", help="write a demo home (once) and show it")
    demo.add_argument("--home", help="where to write it (default: the user cache folder)")
    demo.set_defaults(handler=cmd_demo)
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
    except _BAD_INPUT as exc:
        print(f"error: {exc.title}: {exc.describe()}", file=sys.stderr)
        return EXIT_USAGE
    except MemoryError as exc:
        print(f"error: {exc.title}: {exc.describe()}", file=sys.stderr)
        return EXIT_FAILED


if __name__ == "__main__":
    sys.exit(main())
