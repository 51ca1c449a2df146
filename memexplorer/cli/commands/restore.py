"""``memexplorer restore``: bring a backup written by clean (or redaction) back."""

from __future__ import annotations

from typing import TYPE_CHECKING

from memexplorer.cli.command_classes import Args, command
from memexplorer.cli.commands.common import EXIT_OK, print_json, progress
from memexplorer.cli.commands.confirm import refusal
from memexplorer.cli.commands.options import argument, json_option, yes_option
from memexplorer.operator.wording import counted, rows_and_edges, whole_store_question

if TYPE_CHECKING:
    from memexplorer.operator.backup_records import BackupRecord


def _question(record: BackupRecord) -> str:
    """What the restore will do, computed from the backup: its rows and edges, or for
    a whole-store copy, what putting it back undoes in the store as it is now."""
    from memexplorer.operator.backup_diff import whole_store_difference
    from memexplorer.operator.browse import open_browser

    if record.whole_store:
        current = open_browser(record.store)
        try:
            return whole_store_question(record, whole_store_difference(record, current))
        finally:
            current.close()
    nodes = sum(count for name, count in record.counts.items() if not name.isupper())
    edges = sum(record.counts.values()) - nodes
    note = " (it was restored before)" if record.restored else ""
    return (
        f"Write {rows_and_edges(nodes, edges)} saved by a {record.action} of "
        f"{record.created_at:%Y-%m-%d %H:%M} UTC back into {record.store}{note}?"
    )


@command(
    "restore", "write a backup's rows back into the store it came from",
    description="Bring back what a clean removed (or a redaction changed), in one "
    "transaction: nodes first, then edges. Rows that exist again are reported, not "
    "duplicated. Exit codes: 0 ok, 1 failed (or writes disabled: MEMEXPLORER_READ_ONLY=1), "
    "2 bad input or no --yes without a terminal, 3 the store is locked by another "
    "process or another memexplorer writer holds it (the message names its PID).",
)  # fmt: skip
@argument("backup", "a backup folder (see memexplorer backups)")
@yes_option("restore")
@json_option()
def restore(args: Args) -> int:
    from memexplorer.operator.backup_records import read_backup
    from memexplorer.operator.backups import restore_backup

    record, _ = read_backup(args.backup)
    stop = None if args.yes else refusal(_question(record), "restore")
    if stop is not None:
        return stop
    with progress("Restoring"):
        result = restore_backup(args.backup)
    if args.json:
        print_json(result.to_dict())
        return EXIT_OK
    if result.whole_store:
        print(f"put back the whole of {result.store} from {result.backup}")
        return EXIT_OK
    print(f"restored into {result.store} from {result.backup}")
    for name, table in result.tables.items():
        parts = [f"{table.restored:,} restored"]
        if table.replaced:
            parts.append(f"{table.replaced:,} values put back")
        if table.already_there:
            parts.append(f"{table.already_there:,} already there (left as they are)")
        removed = getattr(table, "removed", 0)  # a merge's undo (engine/merge_undo.py)
        if removed:
            parts.append(f"{counted(removed, 'edge')} the merge added taken out")
        if table.missing_endpoint:
            parts.append(f"{table.missing_endpoint:,} edges skipped (an endpoint is gone)")
        print(f"  {name}: " + ", ".join(parts))
    return EXIT_OK
