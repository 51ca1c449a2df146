"""``memexplorer stats``: what each store under a path is, with counts per agent."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from memexplorer.cli.commands.common import (
    EXIT_FAILED,
    EXIT_OK,
    default_home,
    output_console,
    print_json,
    warn,
)

if TYPE_CHECKING:
    from memexplorer.memory.inspection import StoreSummary
    from memexplorer.storage.exceptions import MemoryError


def _print_stats(summaries: list[StoreSummary], *, wide: bool = False) -> None:
    from rich.markup import escape
    from rich.table import Table

    console = output_console(wide=wide)
    for summary in summaries:
        version = summary.storage_version if summary.storage_version is not None else "-"
        console.print(
            f"{summary.path}  [dim]{summary.kind} · {summary.engine} · storage {version}[/dim]",
            highlight=False,
            soft_wrap=True,  # a long path stays one line rather than wrapping at the table
        )
        table = Table(show_edge=False)
        tables = sorted({t for counts in summary.agents.values() for t in counts})
        longest = max((len(agent) for agent in summary.agents), default=5)
        table.add_column("agent", no_wrap=True, min_width=longest)
        for name in tables:
            table.add_column(name, justify="right")
        for agent, counts in sorted(summary.agents.items()):
            table.add_row(agent, *(f"{counts.get(t, 0):,}" for t in tables))
        console.print(table)
        if summary.written_by:
            console.print(
                f"  [dim]written by {escape(summary.written_by)} · read by "
                f"{escape(summary.read_by or 'nothing installed')}[/dim]",
                highlight=False,
            )
        if summary.add_command:
            console.print(f"  [yellow]to read it whole: {escape(summary.add_command)}[/yellow]")
        if summary.note:
            console.print(f"  [yellow]{escape(summary.note)}[/yellow]")
        if summary.absent_tables:
            console.print(f"  [dim]absent tables: {', '.join(summary.absent_tables)}[/dim]")
        console.print()


def _error_dict(exc: MemoryError) -> dict[str, object]:
    data: dict[str, object] = {
        "path": str(getattr(exc, "path", "")), "error": exc.title, "message": exc.message,
    }  # fmt: skip
    if command := getattr(exc, "add_command", ""):
        data["add_command"] = command
    return data


def run(args: argparse.Namespace) -> int:
    from memexplorer.memory.inspection import summarize_store
    from memexplorer.storage.exceptions import MemoryError
    from memexplorer.storage.stores import find_stores

    root = Path(args.path).expanduser() if args.path else default_home()
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
            payload["errors"] = [_error_dict(e) for e in failures]
        print_json(payload)
    else:
        if not summaries:
            print(f"No memory stores found under {root}", file=sys.stderr)
        _print_stats(summaries, wide=getattr(args, "wide", False))
    for exc in failures:
        warn(f"{exc.title}: {exc.message}")
        if command := getattr(exc, "add_command", ""):
            warn(f"to read it: {command}")
    return EXIT_FAILED if failures and not summaries else EXIT_OK


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "stats", help="what each store under PATH is, and its counts per agent"
    )
    parser.add_argument(
        "path", nargs="?", help="a store, an agent folder or a home (default ~/.amplihack)"
    )
    parser.add_argument("--json", action="store_true", help="print JSON for scripts")
    parser.add_argument(
        "--wide", action="store_true", help="never wrap a table row, even on a narrow terminal"
    )
    parser.set_defaults(handler=run)
