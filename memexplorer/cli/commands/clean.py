"""``memexplorer clean``: preview, then (after a backup) delete what a selection matches."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from memexplorer.cli.command_classes import Args, command
from memexplorer.cli.commands.common import (
    EXIT_OK,
    literal,
    output_console,
    print_json,
    progress,
    undo_command,
    warn,
)
from memexplorer.cli.commands.confirm import refusal
from memexplorer.cli.commands.options import (
    BACKUP_HOME_HELP,
    DAYS,
    argument,
    home_option,
    json_option,
    yes_option,
)
from memexplorer.operator.wording import counted

if TYPE_CHECKING:
    from memexplorer.operator.clean import CleanPreview, CleanTarget
    from memexplorer.operator.clean_selection import Selection

DESCRIPTION = """\
Remove memory in two steps: a preview of what matches (the default, a dry run
that changes nothing), then, with --no-dry-run, the deletion. Before anything
is deleted, a backup of exactly the removed rows and their edges is written
to <home>/backups; `memexplorer restore BACKUP` brings it back.

PATTERN is a glob with * (any characters) and ? (one character). It matches
  in flat stores (memory.db, memory_graph.db): session ids; whole sessions go,
    with their memories and agents' rows
  in hierarchical and cognitive stores: concepts (SemanticMemory.concept);
    '*' matches every node of every table
  in experience stores: experience types (success, failure, ...)

Without --store, clean works on the flat session store that --backend (or
AMPLIHACK_MEMORY_BACKEND, or auto-detection) names in --home. Name any other
store with --store PATH (an agent's graph store, cognitive_db, experiences.db).
--agent, --table, --older-than and --ids narrow the selection (all must hold);
flat stores take only PATTERN and --older-than.

Exit codes: 0 ok, 1 failed (or writes disabled: MEMEXPLORER_READ_ONLY=1), 2 bad
usage or input (or no --yes without a terminal), 3 the store is locked by
another process or another memexplorer writer holds it (the message names its
PID).
"""

EPILOG = """\
examples:
  memexplorer clean 'test_*' --backend sqlite     # preview: sessions test_*
  memexplorer clean 'test_*' --backend sqlite --no-dry-run --yes
  memexplorer clean '*' --older-than 90 \\
      --store ~/.amplihack/hierarchical_memory/ops-agent
  memexplorer clean 'deploy ?' --store cognitive_db --agent ops-agent \\
      --table SemanticMemory
"""


def _print_preview(preview: CleanPreview, reason: str) -> None:
    from rich.table import Table

    console = output_console()
    console.print(
        f"{preview.store}  ({preview.kind}, {preview.engine}{'; ' + reason if reason else ''})",
        highlight=False,
        markup=False,
        soft_wrap=True,
    )
    if not preview.rows:
        console.print("nothing matches")
        return
    table = Table(show_edge=False)
    table.add_column("table")
    table.add_column("what")
    table.add_column("count", justify="right")
    for name, count in preview.counts.items():
        table.add_row(literal(name), "rows", f"{count:,}")
    for name, count in preview.edges.items():
        table.add_row(literal(name), "edges", f"{count:,}")
    console.print(table)
    if preview.agents:
        console.print("agents: " + ", ".join(preview.agents), highlight=False, markup=False)
    for row in preview.sample:
        label = " ".join(str(row["label"]).split())
        label = label if len(label) <= 80 else label[:79] + "…"
        console.print(f"  {row['table']} {row['id']}  {label}", highlight=False, markup=False)
    shown = len(preview.sample)
    if preview.rows > shown:
        console.print(f"  … showing {shown} of {counted(preview.rows, 'row')}", highlight=False)


@command("clean", "preview, then delete (after a backup), sessions or memories matching a glob",
         description=DESCRIPTION, epilog=EPILOG)  # fmt: skip
@argument("pattern", "glob (* and ?): session ids (flat), concepts (graph) or experience types")
@click.option(
    "--dry-run/--no-dry-run",
    default=True,
    help="only show what matches (the default); --no-dry-run deletes after a backup",
)
@yes_option("delete")
@click.option(
    "--backend", help="flat store: sqlite, graph-db or kuzu (wins over AMPLIHACK_MEMORY_BACKEND)"
)
@click.option("--store", metavar="PATH",
              help="clean this store (any kind) instead of the flat store")  # fmt: skip
@click.option("--agent", metavar="A", help="only this agent's rows (graph, experience)")
@click.option("--table", metavar="T", help="only this node table (graph, experience)")
@click.option(
    "--older-than",
    type=DAYS,
    metavar="DAYS",
    help="only rows created (flat: sessions last used) more than DAYS days ago",
)
@click.option(
    "--ids",
    metavar="ID",
    multiple=True,
    help="only rows with this id (graph, experience); repeat for more: --ids A --ids B",
)
@home_option(BACKUP_HOME_HELP)
@click.option(
    "--compact",
    is_flag=True,
    help="then rewrite the store into a fresh file, so the deleted rows leave its bytes",
)
@json_option()
def clean(args: Args) -> int:
    from memexplorer.operator.clean import clean_target
    from memexplorer.operator.clean_selection import Selection
    from memexplorer.operator.write_gate import write_gate

    selection = Selection(
        pattern=args.pattern,
        agent=args.agent,
        table=args.table,
        older_than_days=args.older_than,
        ids=tuple(args.ids or ()),
    )
    target = clean_target(args.store, backend=args.backend, home=args.home)
    for message in target.warnings:
        warn(message)
    if args.dry_run:
        return _preview_and_clean(args, target, selection)
    # A real run holds the store's write gate from the preview to the deletion, so
    # another memexplorer writer is named (exit 3) before anything is read.
    with write_gate(target.path, action="clean"):
        return _preview_and_clean(args, target, selection)


def _preview_and_clean(args: Args, target: CleanTarget, selection: Selection) -> int:
    from memexplorer.cli.commands.compact import compaction_line
    from memexplorer.operator.clean import clean_store, preview_clean
    from memexplorer.operator.redaction import delete_backup_command
    from memexplorer.operator.store_compaction import compact_store
    from memexplorer.storage.backend_choice import amplihack_home
    from memexplorer.storage.store_home import home_of_store

    with progress("Looking for matches"):
        preview = preview_clean(target, selection)
    if args.dry_run or not preview.rows:
        if args.json:
            print_json({**preview.to_dict(), "dry_run": args.dry_run, "backup": None})
        else:
            _print_preview(preview, target.reason)
            if args.dry_run and preview.rows:
                print("dry run: nothing was changed; add --no-dry-run to delete (after a backup)")
        return EXIT_OK
    if not args.json:
        _print_preview(preview, target.reason)
    question = (
        f"Delete {counted(preview.rows, 'row')} and {counted(preview.edge_count, 'edge')} "
        f"from {preview.store}?"
    )
    stop = refusal(question, "delete", yes=args.yes)
    if stop is not None:
        return stop
    # The backup belongs to the store's own home, wherever the command was started.
    home = amplihack_home(args.home) if args.home else home_of_store(Path(preview.store))
    with progress("Backing up and deleting"):
        result = clean_store(target, selection, home=home)
    compaction = None
    if args.compact and result.backup is not None:
        with progress("Rewriting the store without the deleted rows"):
            compaction = compact_store(target.path)
    if args.json:
        print_json(
            {**result.to_dict(), "dry_run": False,
             "compacted": compaction.to_dict() if compaction else None}
        )  # fmt: skip
    else:
        removed = result.preview
        print(
            f"deleted {counted(removed.rows, 'row')} and {counted(removed.edge_count, 'edge')}; "
            f"backup: {result.backup.path if result.backup else 'none (nothing matched)'}"
        )
        if result.backup:
            print(f"undo with: {undo_command(result.backup.path)}")
        if compaction is not None:
            print(compaction_line(compaction))
            print(
                "the backup keeps the deleted rows (readable by you only); once sure, "
                f"delete it: {delete_backup_command(result.backup)}"
            )
    return EXIT_OK
