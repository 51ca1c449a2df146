"""``memexplorer correct``: store the right value of a fact the way the agent's code would.

The preview lists the new fact, every edge and every changed property before
anything is written; ``--json`` prints that plan, and writes only with
``--yes``. ``--undo BACKUP`` removes what one correction added.
"""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import TYPE_CHECKING

import click

from memexplorer.cli.command_classes import Args, command
from memexplorer.cli.commands.common import EXIT_OK, print_json, progress
from memexplorer.cli.commands.confirm import refusal
from memexplorer.cli.commands.options import (
    FRACTION,
    agent_argument,
    argument,
    json_option,
    store_write_options,
)
from memexplorer.operator.terminal_text import terminal_safe
from memexplorer.operator.wording import counted

if TYPE_CHECKING:
    from memexplorer.operator.correct_plan import CorrectionPlan

EPILOG = """\
The corrected fact is stored with the store's own writer's rules
(amplihack-memory-lib for Python-era stores, amplihack-rs for its SQLite and
graph_db stores; docs/curation.md): it supersedes the old fact where that code
would, and only there. A copy of the whole store is kept under <home>/backups
first. Exit codes: 0 ok (or nothing written), 1 failed, 2 bad input or no --yes
without a terminal, 3 the store is held by another writer.

  memexplorer correct ops-agent 9972a55b-... \\
      --content "checkout-api runs 8 replicas"
  memexplorer correct --undo ~/.amplihack/backups/20261126T...-correct-1a2b3c4d
"""


def undo_line(backup: Path) -> str:
    return f"memexplorer correct --undo {shlex.quote(str(backup))}"


def print_plan(plan: CorrectionPlan) -> None:
    """The plan as text; every value from the store or the operator goes through
    terminal_safe (a fact holding an escape sequence must not drive the terminal)."""
    from memexplorer.operator.correct_plan import WRITER_NAMES

    old, node, safe = plan.old, plan.node, terminal_safe
    print(f"Correct fact {safe(old.memory_id)} of {safe(plan.agent)} in {safe(plan.store)}")
    print(f"  writer: {WRITER_NAMES[plan.writer]}")
    print(f"  old: [{safe(old.concept)}] {safe(old.content)} (confidence {old.confidence:g})")
    print(f"  new: [{safe(node['concept'])}] {safe(node['content'])} (confidence "
          f"{node['confidence']:g}, temporal_index "
          f"{plan.call['temporal_metadata']['temporal_index']})")  # fmt: skip
    print(f"new node SemanticMemory {safe(node['memory_id'])}:")
    for name, value in node.items():
        print(f"  {name}: {safe(repr(value))}")
    print(f"edges to write ({len(plan.edges)}):")
    for edge in plan.edges:
        props = ", ".join(f"{k}: {v!r}" for k, v in edge.properties.items())
        print(safe(f"  ({edge.source})-[{edge.rel} {{{props}}}]->({edge.target})"))
    print(f"properties to change ({len(plan.changes)}):")
    for change in plan.changes:
        print(safe(f"  {change.memory_id}.{change.property}: {change.before!r} -> "
                   f"{change.after!r}"))  # fmt: skip
    if plan.note:
        print(f"note: {safe(plan.note)}")


def _undo(args: Args) -> int:
    from memexplorer.operator.correct_undo import undo_correction

    with progress("Removing what the correction added"):
        result = undo_correction(args.undo)
    if args.json:
        print_json(result.to_dict())
    else:
        edges = counted(result.edges_removed, "edge")
        restored = counted(result.properties_restored, "property", "properties")
        print(terminal_safe(f"removed fact {result.node_id} and {edges}; "
                            f"restored {restored} in {result.store}"))  # fmt: skip
    return EXIT_OK


@command("correct", "store a fact's right value the agent's way (supersedes the old one)",
         epilog=EPILOG)  # fmt: skip
@agent_argument("the agent whose fact to correct", required=False)
@argument("memory_id", "the fact's memory_id", required=False)
@click.option("--content", metavar="TEXT", help="the corrected content")
@click.option("--concept", metavar="TEXT", help="a new concept (default: the old one)")
@click.option("--confidence", type=FRACTION, metavar="F",
              help="a new confidence in [0, 1] (default: the old one)")  # fmt: skip
@store_write_options("write")
@json_option("print the plan as JSON (written only with --yes)")
@click.option("--undo", metavar="BACKUP", type=click.Path(path_type=Path),
              help="remove what the correction of this backup folder added")  # fmt: skip
def correct(args: Args) -> int:
    from memexplorer.operator.correct_read import (
        correction_request,
        correction_store,
        plan_correction,
    )
    from memexplorer.operator.correct_write import correct_fact
    from memexplorer.storage.backend_choice import amplihack_home
    from memexplorer.storage.exceptions import InvalidInputError
    from memexplorer.storage.store_home import home_of_store

    if args.undo is not None:
        return _undo(args)
    if args.agent is None or args.memory_id is None or args.content is None:
        raise InvalidInputError(
            "Give AGENT, MEMORY_ID and --content (or --undo BACKUP)",
            hint="e.g. memexplorer correct ops-agent ID --content TEXT",
        )
    store = correction_store(args.agent, args.store, args.home)
    wish = correction_request(args.agent, args.memory_id, args.content, args.concept,
                              args.confidence)  # fmt: skip
    plan = plan_correction(store, wish)
    if args.json and not args.yes:
        print_json({"plan": plan.to_dict(), "written": False})
        return EXIT_OK
    if not args.json:
        print_plan(plan)
    stop = refusal(f"Write this correction to {plan.store}?", "write", yes=args.yes)
    if stop is not None:
        return stop
    home = (amplihack_home(args.home) if args.home else home_of_store(store)).absolute()
    with progress("Backing up and writing the correction"):
        result = correct_fact(plan, wish, home=home)
    if args.json:
        print_json({"plan": result.plan.to_dict(), "written": True,
                    "backup": str(result.backup.path),
                    "undo": undo_line(result.backup.path)})  # fmt: skip
    else:
        print(f"stored {plan.node_id} with {counted(len(plan.edges), 'edge')}; "
              f"backup: {result.backup.path}")  # fmt: skip
        print(f"undo with: {undo_line(result.backup.path)}")
    return EXIT_OK
