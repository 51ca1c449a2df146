"""``memexplorer export`` and ``memexplorer import``: one agent's memory in and out."""

from __future__ import annotations

import argparse
from dataclasses import asdict
from typing import TYPE_CHECKING, Any

from memexplorer.cli.commands.common import (
    EXIT_OK,
    add_memory_option,
    output_console,
    print_json,
    progress,
    warn,
)

if TYPE_CHECKING:
    from memexplorer.operator.transfer import ExportResult, ImportResult


def _as_json(result: ExportResult | ImportResult) -> dict[str, Any]:
    return {key: str(v) if hasattr(v, "__fspath__") else v for key, v in asdict(result).items()}


def _print_counts(title: str, counts: dict[str, int], extra: list[str]) -> None:
    from rich.table import Table

    console = output_console()
    console.print(title, highlight=False, soft_wrap=True)
    table = Table(show_edge=False)
    table.add_column("table")
    table.add_column("count", justify="right")
    for name, count in counts.items():
        table.add_row(name, f"{count:,}")
    console.print(table)
    for line in extra:
        console.print(line)


def _report(
    args: argparse.Namespace, result: ExportResult | ImportResult, title: str, extra: list[str]
) -> int:
    """Warnings on stderr; the result as JSON or as a table of counts on stdout."""
    for message in result.warnings:
        warn(message)
    if args.json:
        print_json(_as_json(result))
    else:
        _print_counts(title, result.counts, extra)
    return EXIT_OK


def run_export(args: argparse.Namespace) -> int:
    from memexplorer.operator.transfer import export_agent_store

    with progress(f"Exporting {args.agent}"):
        result = export_agent_store(
            args.agent,
            args.output,
            format=args.format,
            storage_path=args.storage_path,
            home=args.home,
            overwrite=args.force,
        )
    return _report(
        args,
        result,
        f"Exported {result.agent} ({result.format}) from {result.store}",
        [f"wrote {result.output} ({result.size_bytes:,} bytes)"],
    )


def run_import(args: argparse.Namespace) -> int:
    from memexplorer.operator.transfer import import_agent_store

    with progress(f"Importing into {args.agent}"):
        result = import_agent_store(
            args.agent,
            args.source,
            format=args.format,
            merge=args.merge,
            storage_path=args.storage_path,
            home=args.home,
            engine=args.engine,
            allow_empty=args.allow_empty,
            layout=args.layout,
        )
    extra = [f"skipped (already there): {result.skipped:,}   errors: {result.errors:,}"]
    if result.backup is not None:
        extra.append(f"the previous store is kept at {result.backup}")
    if result.store_backup is not None:
        extra.append(
            f"a copy of the replaced store is in {result.store_backup} "
            "(memexplorer restore puts it back)"
        )
    merged = " (merged)" if result.merged else ""
    title = f"Imported {result.source} into {result.agent} at {result.store}{merged}"
    return _report(args, result, title, extra)


def _common(parser: argparse.ArgumentParser) -> None:
    from memexplorer.operator.transfer_formats import FORMATS

    parser.add_argument(
        "--format",
        default="json",
        choices=list(FORMATS),
        help="json (transfer format 1.1), graph (seed 003's export_graph() shape: nodes "
        "and edges; import reads either JSON shape) or raw-db, a copy of the store (kuzu: alias)",
    )
    parser.add_argument(
        "--storage-path",
        help="the agent's folder (holding graph_db, ladybug_db or kuzu_db) or the store file",
    )
    parser.add_argument(
        "--home", help="the amplihack home when --storage-path is not given (~/.amplihack)"
    )
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    add_memory_option(parser)


def register(subparsers: argparse._SubParsersAction) -> None:
    export = subparsers.add_parser("export", help="write one agent's memory to a file")
    export.add_argument("agent", help="the agent whose memory to export")
    export.add_argument("output", help="the file to write (written whole, or not at all)")
    export.add_argument(
        "--force", action="store_true", help="replace OUT when it exists (refused otherwise)"
    )
    _common(export)
    export.set_defaults(handler=run_export)
    imports = subparsers.add_parser(
        "import", help="bring an export into an agent's memory (replacing it, or --merge)"
    )
    imports.add_argument("agent", help="the agent to import into (the file's name is ignored)")
    imports.add_argument("source", help="a JSON export, or a store file for --format raw-db")
    imports.add_argument(
        "--merge", action="store_true", help="keep the agent's data; skip ids already there"
    )
    imports.add_argument(
        "--allow-empty",
        action="store_true",
        help="let a replace import take a file with no nodes or missing a list "
        "(it empties the agent, or that kind of data)",
    )
    imports.add_argument(
        "--engine",
        choices=("kuzu", "ladybug", "sqlite"),
        help="the engine of a NEW store (default: the existing store's, else kuzu); "
        "sqlite: amplihack-rs's hierarchical_memory/<agent>.db",
    )
    imports.add_argument(
        "--layout",
        choices=("python", "rust"),
        help="where a NEW store goes: python (hierarchical_memory/<agent>, as "
        "amplihack-memory-lib) or rust (hierarchical_memory/<agent>/graph_db, as "
        "amplihack-rs); default: the layout the home already holds",
    )
    _common(imports)
    imports.set_defaults(handler=run_import)
