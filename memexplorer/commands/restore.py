"""``memexplorer restore``: bring a backup written by clean (or redaction) back."""

from __future__ import annotations

import argparse
import sys

from memexplorer.engine.backups import read_backup, restore_backup

from .common import EXIT_OK, EXIT_USAGE, print_json, progress
from .confirm import ask


def run(args: argparse.Namespace) -> int:
    record, _ = read_backup(args.backup)
    rows = sum(record.counts.values())
    if not args.yes:
        note = " (it was restored before)" if record.restored else ""
        answer = ask(
            f"Write {rows:,} saved rows ({record.action} of {record.created_at:%Y-%m-%d %H:%M} "
            f"UTC) back into {record.store}{note}?"
        )
        if answer is None:
            print(
                "error: refusing to restore without --yes: stdin is not a terminal, so nobody "
                "can confirm (nothing was changed)",
                file=sys.stderr,
            )
            return EXIT_USAGE
        if not answer:
            print("nothing was changed", file=sys.stderr)
            return EXIT_OK
    with progress("Restoring"):
        result = restore_backup(args.backup)
    if args.json:
        print_json(result.to_dict())
        return EXIT_OK
    print(f"restored into {result.store} from {result.backup}")
    for name, table in result.tables.items():
        parts = [f"{table.restored:,} restored"]
        if table.replaced:
            parts.append(f"{table.replaced:,} values put back")
        if table.already_there:
            parts.append(f"{table.already_there:,} already there (left as they are)")
        if table.missing_endpoint:
            parts.append(f"{table.missing_endpoint:,} edges skipped (an endpoint is gone)")
        print(f"  {name}: " + ", ".join(parts))
    return EXIT_OK


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "restore",
        help="write a backup's rows back into the store it came from",
        description="Bring back what a clean removed (or a redaction changed), in one "
        "transaction: nodes first, then edges. Rows that exist again are reported, not "
        "duplicated. Exit codes: 0 ok, 1 failed (or writes disabled: MEMEXPLORER_READ_ONLY=1), "
        "2 bad input or no --yes without a terminal, 3 the store is locked by another "
        "process or another memexplorer writer holds it (the message names its PID).",
    )
    parser.add_argument(
        "backup", metavar="BACKUP", help="a backup folder (see memexplorer backups)"
    )
    parser.add_argument("--yes", action="store_true", help="restore without asking")
    parser.add_argument("--json", action="store_true", help="print JSON for scripts")
    parser.set_defaults(handler=run)
