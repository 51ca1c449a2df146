"""``memexplorer migrate``: copy a store to a new one of the other engine."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from memexplorer.cli.command_classes import Args, command
from memexplorer.cli.commands.common import (
    EXIT_FAILED,
    EXIT_OK,
    print_json,
    print_table,
    progress,
    warn,
)
from memexplorer.cli.commands.options import argument, json_option, memory_option

if TYPE_CHECKING:
    from memexplorer.operator.migrate import MigrationResult


def _as_json(result: MigrationResult) -> dict[str, Any]:
    return {
        "source": str(result.source),
        "target": str(result.target),
        "source_engine": result.source_engine,
        "target_engine": result.target_engine,
        "target_storage_version": result.target_storage_version,
        "counts_match": result.counts_match,
        "agents": {
            a.agent: {"source": a.source, "target": a.target, "differing": a.differing}
            for a in result.agents
        },
    }


def _print_table(result: MigrationResult) -> None:
    from rich.text import Text

    version = result.target_storage_version
    storage = f" storage {version}" if version is not None else ""
    title = (f"Migrated {result.source} ({result.source_engine}) to {result.target} "
             f"({result.target_engine}{storage})")  # fmt: skip
    rows: list[tuple[object, ...]] = []
    for agent in result.agents:
        for name in agent.tables:
            source, target = agent.source.get(name, 0), agent.target.get(name, 0)
            mark = "" if source == target else Text("differs", style="red")
            rows.append((agent.agent, name, f"{source:,}", f"{target:,}", mark))
    columns = (("agent", "left"), ("table", "left"), ("source", "right"),
               ("new store", "right"), ("", "left"))  # fmt: skip
    print_table(title, columns, rows)


@command("migrate", "copy a HierarchicalMemory store into a NEW store of the other engine "
         "(Kuzu, LadybugDB, amplihack-rs SQLite), with counts checked")  # fmt: skip
@argument("source", "the store to copy (its file or the agent's folder)")
@argument("target", "the new store file to write (must not exist)")
@click.option(
    "--agent",
    multiple=True,
    help="copy only this agent (repeatable; default: every agent of the source)",
)
@click.option(
    "--engine",
    type=click.Choice(["kuzu", "ladybug", "sqlite"]),
    help="the new store's engine (default: the other graph engine; ladybug for an "
    "amplihack-rs SQLite store); sqlite writes amplihack-rs's <agent>.db schema",
)
@json_option("print the result as JSON")
@memory_option()
def migrate(args: Args) -> int:
    from memexplorer.operator.migrate import migrate_store

    with progress(f"Migrating {args.source}"):
        result = migrate_store(
            args.source, args.target, agents=list(args.agent) or None, engine=args.engine
        )
    if args.json:
        print_json(_as_json(result))
    else:
        _print_table(result)
    if result.counts_match:
        return EXIT_OK
    for agent in result.agents:
        if agent.differing:
            warn(f"{agent.agent}: counts differ in {', '.join(agent.differing)}")
    warn(f"the new store {result.target} does not hold everything the source does")
    return EXIT_FAILED
