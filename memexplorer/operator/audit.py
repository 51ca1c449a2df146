"""The credential audit: every secret in every text column of every store under a path.

Stores are opened read-only and scanned generically from their own catalogs
(Kuzu node and rel tables, SQLite tables), so tables the spec never named are
covered too. Each text column is read with one query that returns only
candidate rows: values containing one of the literal markers every secret
pattern needs (:data:`NEEDLES`), or shaped like base64 of JSON, which the
reference library writes into LadybugDB stores' tags and metadata and no
marker survives; Python decodes those (:mod:`.stored_json`) and
:func:`find_secrets` then decides. A finding in a decoded value names its
column ``<column> (base64)`` and previews the decoded text.
A finding names where the secret is and what kind it is; its preview shows a
little context with every secret masked, so a report can be shown, logged or
mailed without spreading what it found.

This module walks the stores; findings and previews are :mod:`.audit_findings`',
the scans :mod:`.audit_graph`'s and :mod:`.audit_sqlite`'s.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path

from memexplorer.memory.inspection import open_graph
from memexplorer.operator.audit_findings import (
    BASE64_LABEL,
    NEEDLES,
    AuditFinding,
    AuditReport,
    Collector,
    FindingLocation,
    Key,
    mask_secrets,
)
from memexplorer.operator.audit_graph import scan_graph
from memexplorer.operator.audit_sqlite import scan_sqlite
from memexplorer.storage.exceptions import CorruptStoreError, MemoryError
from memexplorer.storage.sqlite_db import SqliteDatabaseError
from memexplorer.storage.sqlite_readonly import open_sqlite_readonly
from memexplorer.storage.store_readers import store_reader
from memexplorer.storage.stores import StoreFormat, find_stores, sniff
from memexplorer.storage.writer_log import unreplayable_log

#: The findings' names are importable here too, where the app, the CLI and
#: redaction look for them.
__all__ = [
    "BASE64_LABEL",
    "NEEDLES",
    "AuditFinding",
    "AuditReport",
    "FindingLocation",
    "audit_paths",
    "audit_store",
    "iter_locations",
    "mask_secrets",
]


def audit_store(fmt: StoreFormat | str | Path, agent: str | None = None) -> list[AuditFinding]:
    """Every secret in one store (read-only), optionally only in ``agent``'s rows.

    With ``agent``, tables that have no agent column (agent_id or agent_name)
    are skipped: their rows belong to no agent.
    """
    fmt = fmt if isinstance(fmt, StoreFormat) else sniff(fmt)
    collector = Collector(fmt.path, agent)
    if fmt.engine == "sqlite":
        connection = open_sqlite_readonly(fmt.path)
        try:
            scan_sqlite(connection, fmt.path, collector)
        except SqliteDatabaseError as exc:
            raise CorruptStoreError(fmt.path, f"SQLite cannot read this file ({exc})") from None
        finally:
            connection.close()
    else:
        with open_graph(fmt.path) as graph:
            scan_graph(graph, collector)
    return collector.findings


def audit_paths(paths: Iterable[str | Path], agent: str | None = None) -> AuditReport:
    """Audit every store at or under each path; one unreadable store never hides the rest."""
    report = AuditReport()
    seen: set[Path] = set()
    for root in paths:
        for fmt in find_stores(Path(root).expanduser()):
            resolved = fmt.path.resolve()
            if resolved in seen:
                continue
            seen.add(resolved)
            try:
                reader = store_reader(fmt)
                replayed = reader is not None and reader.runtime is not None
                if not replayed and (left := unreplayable_log(fmt)) is not None:
                    report.notes[fmt.path] = f"{left.story}; {left.note}"
                report.findings.extend(audit_store(fmt, agent))
            except MemoryError as exc:
                report.errors.append(exc)
                continue
            report.stores.append(fmt.path)
    return report


def iter_locations(findings: Iterable[AuditFinding]) -> Iterator[FindingLocation]:
    """Each distinct value location of the findings, once, in report order."""
    seen: set[tuple[Path, str, str, Key, tuple[str, str] | None]] = set()
    for finding in findings:
        where = finding.location
        ident = (where.path, where.table, where.column, where.key, where.rel_ends)
        if ident not in seen:
            seen.add(ident)
            yield where
