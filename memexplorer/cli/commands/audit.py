"""``memexplorer audit``: every credential stored under a path, never printing one.

Each finding has a confidence: ``high`` for a key's own format (AKIA…, ghp_…, a
PEM block) or a keyword with a value assigned (``password: x``), ``low`` for a
keyword in prose (``the password reset page``).

With ``--redact`` each high-confidence secret (and the low ones too with
``--include-low``) becomes ``[REDACTED]`` after a backup of the rows that change
(``memexplorer restore BACKUP`` puts them back); it asks first unless ``--yes``,
and refuses (exit 2) when stdin is not a terminal.

Exit codes, as secret scanners have them: 0 nothing found (or everything found
was redacted), 1 secrets are stored (or a store could not be audited), 2 bad
usage, 3 a store is busy.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from memexplorer.cli.command_classes import Args, command
from memexplorer.cli.commands.common import (
    EXIT_FAILED,
    EXIT_OK,
    EXIT_USAGE,
    default_home,
    print_json,
    progress,
    undo_command,
    warn,
)
from memexplorer.cli.commands.confirm import refusal
from memexplorer.cli.commands.options import (
    BACKUP_HOME_HELP,
    argument,
    home_option,
    json_option,
    yes_option,
)

if TYPE_CHECKING:
    from memexplorer.operator.audit import AuditFinding, AuditReport
    from memexplorer.operator.redaction import RedactionResult

_COLUMNS = ("agent", "table", "id", "column", "kind", "confidence", "preview")


def _print_findings(report: AuditReport) -> None:
    from memexplorer.memory.security import HIGH

    by_store: dict[str, list[AuditFinding]] = {}
    for finding in report.findings:
        by_store.setdefault(finding.store, []).append(finding)
    for store, findings in by_store.items():
        print(store)
        rows = [[str(getattr(f, name)) for name in _COLUMNS] for f in findings]
        last = len(_COLUMNS) - 1
        widths = [max(len(row[i]) for row in [list(_COLUMNS), *rows]) for i in range(last)]
        for row in [list(_COLUMNS), *rows]:
            cells = [cell.ljust(width) for cell, width in zip(row, widths, strict=False)]
            print("  " + "  ".join([*cells, row[last]]))
        print()
    rows_hit = len({(f.store, f.table, f.id, f.column) for f in report.findings})
    low = sum(1 for f in report.findings if f.confidence != HIGH)
    print(
        f"{len(report.findings)} secret(s) ({low} of low confidence) in {rows_hit} value(s) "
        f"of {len(by_store)} store(s); {len(report.stores)} store(s) audited"
    )


def _print_redactions(results: list[RedactionResult]) -> None:
    from memexplorer.cli.commands.compact import compaction_line
    from memexplorer.operator.redaction import delete_backup_command

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
            print(f"  undo with: {undo_command(result.backup.path)}")
            print(
                "  the backup keeps the old values (readable by you only); once sure, "
                f"delete it: {delete_backup_command(result.backup)}"
            )
        for what in result.not_redacted:
            print(f"  not redacted: {what}")


def _to_redact(args: Args, report: AuditReport) -> list[AuditFinding]:
    """The findings --redact takes: the high-confidence ones, or all with --include-low."""
    from memexplorer.memory.security import HIGH

    return [f for f in report.findings if args.include_low or f.confidence == HIGH]


def _confirmed(args: Args, findings: list[AuditFinding], home: Path) -> int | None:
    """None to go ahead; else the exit code (asked and refused, or nobody to ask)."""
    values = len({(f.store, f.table, f.id, f.column) for f in findings})
    stores = len({f.store for f in findings})
    question = (
        f"Replace {len(findings):,} secret(s) in {values:,} value(s) of {stores} "
        f"store(s) with [REDACTED]? The rows are backed up under {home / 'backups'} first; "
        "each graph store is then rewritten into a fresh file, so the old bytes leave it."
    )
    return refusal(question, "redact", yes=args.yes)


@command(
    "audit",
    "find credentials stored in memory (previews never show them); exit 1 when any are stored",
)
@argument("paths", "stores, agent folders or homes to audit (default ~/.amplihack)",
          nargs=-1, metavar="[PATH]...")  # fmt: skip
@click.option("--agent", help="only this agent's rows")
@json_option()
@click.option("--redact", is_flag=True,
              help="replace each secret found with [REDACTED], after a backup of the rows "
              "it changes")  # fmt: skip
@click.option(
    "--include-low",
    is_flag=True,
    help="with --redact, also redact low-confidence findings (a keyword in prose)",
)
@yes_option("redact")
@home_option(BACKUP_HOME_HELP)
def audit(args: Args) -> int:
    from memexplorer.operator.audit import audit_paths
    from memexplorer.operator.redaction import redact_findings
    from memexplorer.storage.backend_choice import amplihack_home
    from memexplorer.storage.names import validate_agent_name

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
    remaining = len(report.findings)
    chosen = _to_redact(args, report) if args.redact else []
    if chosen:
        home = amplihack_home(args.home)
        refused = _confirmed(args, chosen, home)
        if refused is not None:
            if args.json:
                print_json(payload)
            return refused
        with progress("Backing up and redacting"):
            results = redact_findings(chosen, home=home, include_low=args.include_low)
        payload["redacted"] = [result.to_dict() for result in results]
        if not args.json:
            _print_redactions(results)
        for result in results:
            if result.refused:
                warn(f"not redacted in {result.store}: {result.refused}")
        remaining -= len(chosen) - sum(len(r.not_redacted) for r in results)
    elif args.redact:
        payload["redacted"] = []
        if report.findings and not args.json:
            print("nothing redacted: every finding is of low confidence (see --include-low)")
    if args.json:
        print_json(payload)
    refused = any(r.get("refused") for r in payload.get("redacted", []))
    return EXIT_FAILED if report.errors or refused or remaining > 0 else EXIT_OK
