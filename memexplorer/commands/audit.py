"""``memexplorer audit``: every credential stored under a path, never printing one.

With ``--redact`` each secret becomes ``[REDACTED]`` after a backup of the rows
that change (``memexplorer restore BACKUP`` puts them back); it asks first
unless ``--yes``, and refuses (exit 2) when stdin is not a terminal.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from memexplorer.engine.audit import AuditFinding, AuditReport, audit_paths
from memexplorer.engine.backend_choice import amplihack_home
from memexplorer.engine.names import validate_agent_name
from memexplorer.engine.redaction import RedactionResult, delete_backup_command, redact_findings

from .common import EXIT_FAILED, EXIT_OK, EXIT_USAGE, default_home, print_json, progress, warn
from .compact import compaction_line
from .confirm import ask

_COLUMNS = ("agent", "table", "id", "column", "kind", "preview")


def _print_findings(report: AuditReport) -> None:
    by_store: dict[str, list[AuditFinding]] = {}
    for finding in report.findings:
        by_store.setdefault(finding.store, []).append(finding)
    for store, findings in by_store.items():
        print(store)
        rows = [[str(getattr(f, name)) for name in _COLUMNS] for f in findings]
        widths = [max(len(row[i]) for row in [list(_COLUMNS), *rows]) for i in range(5)]
        for row in [list(_COLUMNS), *rows]:
            cells = [cell.ljust(width) for cell, width in zip(row, widths, strict=False)]
            print("  " + "  ".join([*cells, row[5]]))
        print()
    rows_hit = len({(f.store, f.table, f.id, f.column) for f in report.findings})
    print(
        f"{len(report.findings)} secret(s) in {rows_hit} value(s) of {len(by_store)} store(s); "
        f"{len(report.stores)} store(s) audited"
    )


def _print_redactions(results: list[RedactionResult]) -> None:
    for result in results:
        if result.refused:
            continue  # said on stderr (run)
        counts = ", ".join(f"{table}: {n:,}" for table, n in result.values.items()) or "none"
        print(f"redacted in {result.store}: {counts} value(s)")
        if result.compaction is not None:
            print(f"  {compaction_line(result.compaction)}")
        if result.not_compacted:
            print(f"  old values still in the file's bytes: {result.not_compacted}")
        if result.backup is not None:
            print(f"  backup: {result.backup.path}")
            print(f"  undo with: memexplorer restore {result.backup.path}")
            print(
                "  the backup keeps the old values (readable by you only); once sure, "
                f"delete it: {delete_backup_command(result.backup)}"
            )
        for what in result.not_redacted:
            print(f"  not redacted: {what}")


def _confirmed(args: argparse.Namespace, report: AuditReport, home: Path) -> int | None:
    """None to go ahead; else the exit code (asked and refused, or nobody to ask)."""
    if args.yes:
        return None
    values = len({(f.store, f.table, f.id, f.column) for f in report.findings})
    stores = len({f.store for f in report.findings})
    answer = ask(
        f"Replace {len(report.findings):,} secret(s) in {values:,} value(s) of {stores} "
        f"store(s) with [REDACTED]? The rows are backed up under {home / 'backups'} first; "
        "each graph store is then rewritten into a fresh file, so the old bytes leave it."
    )
    if answer is None:
        print(
            "error: refusing to redact without --yes: stdin is not a terminal, so nobody "
            "can confirm (nothing was changed)",
            file=sys.stderr,
        )
        return EXIT_USAGE
    if not answer:
        print("nothing was changed", file=sys.stderr)
        return EXIT_OK
    return None


def run(args: argparse.Namespace) -> int:
    if args.yes and not args.redact:
        print("error: --yes only goes with --redact", file=sys.stderr)
        return EXIT_USAGE
    agent = validate_agent_name(args.agent) if args.agent is not None else None
    roots = [Path(p).expanduser() for p in args.paths] or [default_home()]
    with progress("Auditing stores"):
        report = audit_paths(roots, agent)
    if len(report.errors) == 1 and not report.stores:
        raise report.errors[0]  # the one store named could not be read: its own exit code
    payload: dict[str, Any] = report.to_dict()
    if not args.json:
        _print_findings(report)
    for store, note in report.notes.items():
        warn(f"{store}: {note}")
    for error in report.errors:
        warn(f"not audited: {error.title}: {error.message}")
    if args.redact and report.findings:
        home = amplihack_home(args.home)
        refused = _confirmed(args, report, home)
        if refused is not None:
            if args.json:
                print_json(payload)
            return refused
        with progress("Backing up and redacting"):
            results = redact_findings(report.findings, home=home)
        payload["redacted"] = [result.to_dict() for result in results]
        if not args.json:
            _print_redactions(results)
        for result in results:
            if result.refused:
                warn(f"not redacted in {result.store}: {result.refused}")
    elif args.redact:
        payload["redacted"] = []
    if args.json:
        print_json(payload)
    refused = any(r.get("refused") for r in payload.get("redacted", []))
    return EXIT_FAILED if report.errors or refused else EXIT_OK


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "audit", help="find credentials stored in memory (previews never show them)"
    )
    parser.add_argument(
        "paths",
        nargs="*",
        metavar="PATH",
        help="stores, agent folders or homes to audit (default ~/.amplihack)",
    )
    parser.add_argument("--agent", help="only this agent's rows")
    parser.add_argument("--json", action="store_true", help="print JSON for scripts")
    parser.add_argument(
        "--redact",
        action="store_true",
        help="replace each secret found with [REDACTED], after a backup of the rows it changes",
    )
    parser.add_argument("--yes", action="store_true", help="redact without asking")
    parser.add_argument(
        "--home", metavar="H", help="the amplihack home, where backups go (default ~/.amplihack)"
    )
    parser.set_defaults(handler=run)
