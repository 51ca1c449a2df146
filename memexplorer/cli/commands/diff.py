"""``memexplorer diff A B`` and ``memexplorer snapshot AGENT``: what an agent's memory
gained, lost and changed between two points (stores, exports, snapshots, backups)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from memexplorer.cli.command_classes import Args, command
from memexplorer.cli.commands.common import EXIT_OK, print_json, progress
from memexplorer.cli.commands.options import (
    agent_argument,
    argument,
    home_option,
    json_option,
    storage_path_option,
)

if TYPE_CHECKING:
    from memexplorer.operator.diff_report import DiffReport
    from memexplorer.operator.memory_diff import TableDiff

#: Longest content shown on a line of the text output.
_CLIP = 80


def _clip(text: Any) -> str:
    value = " ".join(str(text).split())
    return value if len(value) <= _CLIP else value[: _CLIP - 1] + "…"


def _record(table: TableDiff, record: dict[str, Any]) -> str:
    if table.kind == "rel":
        return f"{record['source_id']} -> {record['target_id']}"
    concept = f"[{record['concept']}] " if record.get("concept") else ""
    return f"{record['memory_id']}  {concept}{_clip(record.get('content', ''))}"


def _print_table(table: TableDiff) -> None:
    if table.skipped:
        print(f"{table.table}: not compared ({table.skipped})")
        return
    if table.empty:
        return
    print(f"{table.table}: {len(table.added)} added, {len(table.removed)} removed, "
          f"{len(table.changed)} changed")  # fmt: skip
    for record in table.added:
        print(f"  + {_record(table, record)}")
    for record in table.removed:
        print(f"  - {_record(table, record)}")
    for change in table.changed:
        how = "" if change.key == change.old_key else f" (was {change.old_key}, same concept)"
        print(f"  ~ {change.key}{how}")
        for name, (old, new) in change.fields.items():
            print(f"      {name}: {_clip(old)} -> {_clip(new)}")


def _print(report: DiffReport) -> None:
    for name, side in (("A", report.a), ("B", report.b)):
        print(f"{name}: {side.kind} {side.path} · agent {side.agent or '?'} · {side.taken_at}")
    if not report.same_agent:
        print(f"warning: A is {report.a.agent!r}'s memory and B is {report.b.agent!r}'s")
    print()
    if report.diff.empty:
        print("No differences.")
    for table in report.diff.tables:
        _print_table(table)
    for chain in report.diff.chains:
        before = "; ".join(_clip(h["content"]) for h in chain.before)
        after = "; ".join(_clip(h["content"]) for h in chain.after)
        print(f"chain [{chain.concept}] moved {chain.direction} ({chain.new_steps} new step(s)): "
              f"{before} -> {after}")  # fmt: skip


@command("diff", "what changed in an agent's memory between two stores, exports, "
         "snapshots or backups (read-only)")  # fmt: skip
@argument("a", "the earlier side: a store, an export, a snapshot, a backup folder, or an "
          "agent (its store now)")  # fmt: skip
@argument("b", "the later side, named the same ways")
@click.option("--agent", help="whose memory a store or backup side holds "
              "(default: the agent the other side names)")  # fmt: skip
@home_option("the amplihack home an agent's name is looked up in")
@click.option("--other-agent", is_flag=True, help="compare two agents' memories anyway")
@json_option()
def diff(args: Args) -> int:
    from memexplorer.operator.diff_report import diff_memory

    with progress("Comparing"):
        report = diff_memory(args.a, args.b, agent=args.agent, home=args.home,
                             other_agent=args.other_agent)  # fmt: skip
    if args.json:
        print_json(report.to_dict())
    else:
        _print(report)
    return EXIT_OK


@command("snapshot", "keep a dated export of an agent under the home, for later diffs")
@agent_argument("the agent to snapshot")
@home_option()
@storage_path_option("the agent's store, when not in the home")
@json_option()
def snapshot(args: Args) -> int:
    from memexplorer.operator.snapshots import take_snapshot

    with progress("Taking a snapshot"):
        snapshot = take_snapshot(args.agent, home=args.home, storage_path=args.storage_path)
    if args.json:
        print_json({"agent": snapshot.agent, "path": str(snapshot.path),
                    "taken_at": snapshot.taken_at.isoformat(), "size": snapshot.size})  # fmt: skip
        return EXIT_OK
    print(f"Snapshot of {snapshot.agent} ({snapshot.size:,} bytes): {snapshot.path}")
    print(f"What changed since: memexplorer diff {snapshot.path} {snapshot.agent}")
    return EXIT_OK
