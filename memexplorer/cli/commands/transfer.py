"""``memexplorer export`` and ``memexplorer import``: one agent's memory in and out."""

from __future__ import annotations

from dataclasses import asdict
from typing import TYPE_CHECKING, Any

import click

from memexplorer.cli.command_classes import Args, Handler, command
from memexplorer.cli.commands.common import EXIT_OK, print_json, print_table, progress, warn
from memexplorer.cli.commands.options import (
    agent_argument,
    argument,
    home_option,
    json_option,
    memory_option,
    storage_path_option,
)

if TYPE_CHECKING:
    from memexplorer.operator.transfer import ExportResult, ImportResult


def _as_json(result: ExportResult | ImportResult) -> dict[str, Any]:
    return {key: str(v) if hasattr(v, "__fspath__") else v for key, v in asdict(result).items()}


def _print_counts(title: str, counts: dict[str, int], extra: list[str]) -> None:
    rows = [(name, f"{count:,}") for name, count in counts.items()]
    console = print_table(title, (("table", "left"), ("count", "right")), rows)
    for line in extra:
        console.print(line, markup=False)


def _report(args: Args, result: ExportResult | ImportResult, title: str, extra: list[str]) -> int:
    """Warnings on stderr; the result as JSON or as a table of counts on stdout."""
    for message in result.warnings:
        warn(message)
    if args.json:
        print_json(_as_json(result))
    else:
        _print_counts(title, result.counts, extra)
    return EXIT_OK


def _where(args: Args) -> dict[str, Any]:
    """The agent's store and the file's format, as both directions take them."""
    return {"format": args.format, "storage_path": args.storage_path, "home": args.home}


def _transfer_options(function: Handler) -> Handler:
    """What export and import share: the format, where the agent's store is, --json
    and --memory."""
    from memexplorer.operator.transfer_formats import FORMATS

    for option in (
        memory_option(),
        json_option("print the result as JSON"),
        home_option("the amplihack home when --storage-path is not given (~/.amplihack)"),
        storage_path_option(
            "the agent's folder (holding graph_db, ladybug_db or kuzu_db) or the store file"
        ),
        click.option(
            "--format",
            default="json",
            type=click.Choice(list(FORMATS)),
            help="json (transfer format 1.1), graph (seed 003's export_graph() shape: nodes "
            "and edges; import reads either JSON shape) or raw-db, a copy of the store "
            "(kuzu: alias)",
        ),
    ):
        function = option(function)
    return function


@command("export", "write one agent's memory to a file")
@agent_argument("the agent whose memory to export")
@argument("output", "the file to write (written whole, or not at all)")
@click.option("--force", is_flag=True, help="replace OUTPUT when it exists (refused otherwise)")
@_transfer_options
def export(args: Args) -> int:
    from memexplorer.operator.transfer import export_agent_store

    with progress(f"Exporting {args.agent}"):
        result = export_agent_store(args.agent, args.output, overwrite=args.force, **_where(args))
    return _report(
        args,
        result,
        f"Exported {result.agent} ({result.format}) from {result.store}",
        [f"wrote {result.output} ({result.size_bytes:,} bytes)"],
    )


@command("import", "bring an export into an agent's memory (replacing it, or --merge)")
@agent_argument("the agent to import into (the file's name is ignored)")
@argument("source", "a JSON export, or a store file for --format raw-db")
@click.option("--merge", is_flag=True, help="keep the agent's data; skip ids already there")
@click.option(
    "--allow-empty", is_flag=True,
    help="let a replace import take a file with no nodes or missing a list "
    "(it empties the agent, or that kind of data)",
)  # fmt: skip
@click.option(
    "--engine", type=click.Choice(["kuzu", "ladybug", "sqlite"]),
    help="the engine of a NEW store (default: the existing store's, else kuzu); "
    "sqlite: amplihack-rs's hierarchical_memory/<agent>.db",
)  # fmt: skip
@click.option(
    "--layout", type=click.Choice(["python", "rust"]),
    help="where a NEW store goes: python (hierarchical_memory/<agent>, as "
    "amplihack-memory-lib) or rust (hierarchical_memory/<agent>/graph_db, as "
    "amplihack-rs); default: the layout the home already holds",
)  # fmt: skip
@_transfer_options
def import_(args: Args) -> int:
    from memexplorer.operator.transfer import import_agent_store

    with progress(f"Importing into {args.agent}"):
        result = import_agent_store(
            args.agent, args.source, merge=args.merge, engine=args.engine,
            allow_empty=args.allow_empty, layout=args.layout, **_where(args),
        )  # fmt: skip
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
