"""``memexplorer duplicates`` lists an agent's groups of near-identical facts;
``memexplorer merge`` merges one group (preview, backup, then the write)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from memexplorer.cli.command_classes import Args, command
from memexplorer.cli.commands.common import (
    EXIT_INTERRUPTED,
    EXIT_OK,
    output_console,
    print_json,
    progress,
    undo_command,
)
from memexplorer.cli.commands.confirm import refusal
from memexplorer.cli.commands.options import (
    SIMILARITY,
    agent_argument,
    argument,
    json_option,
    store_options,
    store_write_options,
)
from memexplorer.operator.duplicates_threshold import DEFAULT_THRESHOLD
from memexplorer.operator.wording import counted

if TYPE_CHECKING:
    from memexplorer.operator.duplicates import DuplicatesReport
    from memexplorer.operator.merge_plan import MergePlan
    from memexplorer.storage.progress import ProgressStep

MERGE_DESCRIPTION = """\
Merge duplicate facts the agent's way: KEEP_ID supersedes each OTHER_ID as the
store's own writer supersedes a fact (a SUPERSEDES edge; with memexplorer's
seed-003 stores also TRANSITIONED_TO and the superseded fact's confidence
halved). Nothing is deleted. The plan is shown first; with --yes (or after you
confirm) the facts are backed up and the edges written in one transaction.
`memexplorer restore BACKUP` undoes it, and refuses if the store changed since.

Exit codes: 0 ok, 1 failed (or writes disabled: MEMEXPLORER_READ_ONLY=1), 2 bad
usage or input (or no --yes without a terminal), 3 the store is locked.
"""


def _short(text: str, width: int = 70) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def _print_report(report: DuplicatesReport) -> None:
    console = output_console()
    console.print(
        f"{report.agent} in {report.store}  ({report.engine}; supersedes as {report.writer})",
        highlight=False, markup=False, soft_wrap=True,
    )  # fmt: skip
    console.print(
        f"{counted(len(report.groups), 'group')} of {counted(report.duplicates, 'duplicate')} "
        f"at similarity >= {report.threshold:g} among {counted(report.facts, 'fact')} "
        f"({report.superseded:,} superseded already, left out)",
        highlight=False, markup=False,
    )  # fmt: skip
    for number, group in enumerate(report.groups, start=1):
        console.print(f"\n{number}. [{group.concept}] {counted(len(group.facts), 'fact')}",
                      highlight=False, markup=False)  # fmt: skip
        keep = group.newest
        for fact in group.facts:
            score = "keep" if fact is keep else f"{group.score_with(keep, fact):.2f}"
            console.print(f"   {score:>5}  {fact.memory_id}  {fact.created_at}  "
                          f"{_short(fact.content)}", highlight=False, markup=False)  # fmt: skip


def _where(last: list[ProgressStep]) -> str:
    """Where the search was when it stopped, from its last report."""
    if not last:
        return "before reading the facts"
    step = last[0]
    done = f"{step.done:,} of {step.total:,}" if step.total else f"{step.done:,}"
    return f"while {step.stage} ({done} {step.unit})"


@command("duplicates", "an agent's groups of near-identical facts (same concept), newest first")
@agent_argument("the agent whose facts to compare")
@click.option("--threshold", type=SIMILARITY, default=DEFAULT_THRESHOLD,
              help=f"pairs scoring at least this are duplicates (default {DEFAULT_THRESHOLD:g}; "
              "the library's similarity, 0 to 1)")  # fmt: skip
@store_options()
@json_option()
def duplicates(args: Args) -> int:
    from memexplorer.operator.duplicates import find_duplicates
    from memexplorer.operator.merge_store import agent_store
    from memexplorer.storage.progress import TaskControl

    store = agent_store(args.agent, args.store, args.home)
    last: list[ProgressStep] = []  # the search's last report, for a stop's message

    def heard(step: ProgressStep) -> None:
        last[:] = [step]

    try:
        with progress("Looking for duplicates"):
            report = find_duplicates(store, args.agent, args.threshold, TaskControl(heard))
    except KeyboardInterrupt:
        print(f"stopped (ctrl+c) {_where(last)}: no groups listed; the store was only "
              "read, nothing was changed", file=sys.stderr)  # fmt: skip
        return EXIT_INTERRUPTED
    if args.json:
        print_json(report.to_dict())
    else:
        _print_report(report)
    return EXIT_OK


def _print_plan(plan: MergePlan) -> None:
    console = output_console()
    console.print(f"{plan.agent} in {plan.store}  ({plan.engine}; supersedes as {plan.writer})",
                  highlight=False, markup=False, soft_wrap=True)  # fmt: skip
    console.print(f"keep  {plan.keep.memory_id}  {_short(plan.keep.content)}",
                  highlight=False, markup=False)  # fmt: skip
    for fact, score in zip(plan.others, plan.scores, strict=True):
        console.print(f"  {score:.2f}  {fact.memory_id}  {_short(fact.content)}",
                      highlight=False, markup=False)  # fmt: skip
    console.print("will write:", highlight=False)
    for edge in plan.edges:
        props = ", ".join(f"{name}: {value!r}" for name, value in edge.properties)
        console.print(f"  + {edge.rel} {edge.source} -> {edge.target} {{{props}}}",
                      highlight=False, markup=False, soft_wrap=True)  # fmt: skip
    for change in plan.changes:
        line = f"  ~ {change.memory_id}.{change.column}: {change.before!r} -> {change.after!r}"
        console.print(line, highlight=False, markup=False, soft_wrap=True)


@command("merge", "merge duplicate facts: one supersedes the others, after a backup",
         description=MERGE_DESCRIPTION)  # fmt: skip
@agent_argument("the agent whose facts to merge")
@argument("keep_id", "the fact kept (the current value)")
@argument("other_ids", "the facts it supersedes", nargs=-1, required=True, metavar="OTHER_ID...")
@store_write_options("merge")
@click.option("--dry-run", is_flag=True, help="only show the plan")
@json_option()
def merge(args: Args) -> int:
    from memexplorer.operator.merge import merge_facts, preview_merge
    from memexplorer.operator.merge_store import agent_store
    from memexplorer.storage.backend_choice import amplihack_home
    from memexplorer.storage.store_home import home_of_store

    store = agent_store(args.agent, args.store, args.home)
    plan = preview_merge(store, args.agent, args.keep_id, args.other_ids)
    if args.dry_run:
        if args.json:
            print_json({**plan.to_dict(), "merged": False, "backup": None})
        else:
            _print_plan(plan)
            print("dry run: nothing was changed")
        return EXIT_OK
    if not args.json:
        _print_plan(plan)
    question = f"Merge {counted(len(plan.others), 'fact')} into {plan.keep.memory_id}?"
    stop = refusal(question, "merge", yes=args.yes)
    if stop is not None:
        return stop
    home = amplihack_home(args.home) if args.home else home_of_store(Path(plan.store))
    with progress("Backing up and merging"):
        result = merge_facts(plan, home=home)
    if args.json:
        print_json(result.to_dict())
    else:
        print(f"merged {counted(len(plan.others), 'fact')} into {plan.keep.memory_id}; "
              f"backup: {result.backup.path}")  # fmt: skip
        print(f"undo with: {undo_command(result.backup.path)}")
    return EXIT_OK
