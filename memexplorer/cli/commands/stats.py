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
    from memexplorer.storage.stores import StoreFormat


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


def _cost(fmt: StoreFormat) -> float:
    """A store's guessed reading cost, to share the stores out among processes: a
    graph engine's open and catalog calls cost some 15-40 ms whatever the store's
    size on disk, a SQLite file's count about 1 ms."""
    return 0.1 if fmt.engine == "sqlite" else 1.0


def _load_drawing() -> None:
    """Load what the text tables are drawn with (rich: some 17 ms) while stores are read."""
    import rich.table  # noqa: F401


@command("stats", "what each store under PATH is, and its counts per agent")
@argument("path", "a store, an agent folder or a home (default ~/.amplihack)", required=False)
@json_option()
@wide_option()
def stats(args: Args) -> int:
    from memexplorer.memory.inspection import summarize_store
    from memexplorer.storage.exceptions import MemoryError
    from memexplorer.storage.parallel_reads import read_in_parallel
    from memexplorer.storage.stores import find_stores

    root = Path(args.path).expanduser() if args.path else default_home()
    stores = find_stores(root)
    summaries: list[StoreSummary] = []
    failures: list[MemoryError] = []
    drawing = None if args.json else _load_drawing
    reads = read_in_parallel(
        summarize_store, stores, weight=_cost, catch=(MemoryError,), meanwhile=drawing
    )
    for read in reads:
        if isinstance(read, MemoryError):
            if len(stores) == 1:
                raise read
            failures.append(read)
        else:
            summaries.append(read)
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
