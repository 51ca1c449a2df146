"""``memexplorer stats``: what each store under a path is, with counts per agent."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

from memexplorer.cli.command_classes import Args, command
from memexplorer.cli.commands.common import (
    EXIT_FAILED,
    EXIT_OK,
    default_home,
    literal,
    output_console,
    print_json,
    warn,
)
from memexplorer.cli.commands.options import argument, json_option, wide_option

if TYPE_CHECKING:
    from memexplorer.memory.inspection import StoreSummary
    from memexplorer.storage.exceptions import MemoryError


def _print_stats(summaries: list[StoreSummary], *, wide: bool = False) -> None:
    from rich.markup import escape
    from rich.table import Table
    from rich.text import Text

    console = output_console(wide=wide)
    for summary in summaries:
        version = summary.storage_version if summary.storage_version is not None else "-"
        console.print(
            Text.assemble(
                f"{summary.path}  ",
                (f"{summary.kind} · {summary.engine} · storage {version}", "dim"),
            ),
            highlight=False,
            soft_wrap=True,  # a long path stays one line rather than wrapping at the table
        )
        table = Table(show_edge=False)
        tables = sorted({t for counts in summary.agents.values() for t in counts})
        longest = max((len(agent) for agent in summary.agents), default=5)
        table.add_column("agent", no_wrap=True, min_width=longest)
        for name in tables:
            table.add_column(literal(name), justify="right")
        for agent, counts in sorted(summary.agents.items()):
            table.add_row(literal(agent), *(f"{counts.get(t, 0):,}" for t in tables))
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
            absent = escape(", ".join(summary.absent_tables))
            console.print(f"  [dim]absent tables: {absent}[/dim]")
        console.print()


def _error_dict(exc: MemoryError) -> dict[str, object]:
    data: dict[str, object] = {
        "path": str(getattr(exc, "path", "")), "error": exc.title, "message": exc.message,
    }  # fmt: skip
    if command := getattr(exc, "add_command", ""):
        data["add_command"] = command
    return data


@command("stats", "what each store under PATH is, and its counts per agent")
@argument("path", "a store, an agent folder or a home (default ~/.amplihack)", required=False)
@json_option()
@wide_option()
def stats(args: Args) -> int:
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
        _print_stats(summaries, wide=args.wide)
    for exc in failures:
        warn(f"{exc.title}: {exc.message}")
        if command := getattr(exc, "add_command", ""):
            warn(f"to read it: {command}")
    return EXIT_FAILED if failures and not summaries else EXIT_OK
