"""``memexplorer audit``: every credential stored under a path, never printing one."""

from __future__ import annotations

import argparse
from pathlib import Path

from memexplorer.engine.audit import AuditFinding, AuditReport, audit_paths
from memexplorer.engine.names import validate_agent_name

from .common import EXIT_FAILED, EXIT_OK, default_home, print_json, progress, warn

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


def run(args: argparse.Namespace) -> int:
    agent = validate_agent_name(args.agent) if args.agent is not None else None
    roots = [Path(p).expanduser() for p in args.paths] or [default_home()]
    with progress("Auditing stores"):
        report = audit_paths(roots, agent)
    if len(report.errors) == 1 and not report.stores:
        raise report.errors[0]  # the one store named could not be read: its own exit code
    if args.json:
        print_json(report.to_dict())
    else:
        _print_findings(report)
    for error in report.errors:
        warn(f"not audited: {error.title}: {error.message}")
    return EXIT_FAILED if report.errors else EXIT_OK


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
    parser.set_defaults(handler=run)
