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
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from memexplorer.memory.inspection import AGENT_COLUMNS, open_graph
from memexplorer.memory.rs_sqlite_schema import edge_owner_sql, is_rs_hierarchical
from memexplorer.memory.security import (
    HIGH,
    SECRET_PATTERNS,
    SecretFinding,
    SecretPattern,
    find_secrets,
)
from memexplorer.storage.exceptions import CorruptStoreError, MemoryError
from memexplorer.storage.graphdb import GraphStore, identifier
from memexplorer.storage.sqlite_db import (
    SqliteConnection,
    SqliteDatabaseError,
    SqliteStatementError,
)
from memexplorer.storage.sqlite_readonly import open_sqlite_readonly
from memexplorer.storage.store_readers import store_reader
from memexplorer.storage.stored_json import BASE64_JSON_REGEX, stored_json_text
from memexplorer.storage.stores import StoreFormat, find_stores, sniff
from memexplorer.storage.writer_log import unreplayable_log

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

#: For each secret pattern (by its regex text), lowercase strings of which every
#: match contains at least one. A column value containing none of them cannot
#: hold a secret, so the database filters rows before Python runs the regexes.
#: A pattern missing here (a new row in SECRET_PATTERNS) turns the filter off.
NEEDLES: dict[str, tuple[str, ...]] = {
    '-----BEGIN (?:RSA|DSA|EC|OPENSSH) PRIVATE KEY-----': ('-----begin',),
    '-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----(?:[\\s\\S]*?-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|(?:\\s*[A-Za-z0-9+/=]{16,})*)': ('-----begin',),  # noqa: E501
    '(?:AKIA|ASIA)[0-9A-Z]{16}': ('akia', 'asia'),
    'aws_secret_access_key[\\"\'\\s:=]+(?P<secret>[A-Za-z0-9/+=]{40})': ('aws_secret_access_key',),
    'AccountKey=(?P<secret>[A-Za-z0-9+/]{86}==)': ('accountkey=',),
    'gh[pousr]_[A-Za-z0-9]{36,}': ('ghp_', 'gho_', 'ghu_', 'ghs_', 'ghr_'),
    'github_pat_[A-Za-z0-9_]{22,}': ('github_pat_',),
    'sk-(?:proj|svcacct|admin)-[A-Za-z0-9_\\-]{20,}': ('sk-',),
    'sk-[A-Za-z0-9]{20,}': ('sk-',),
    '\\b[rs]k_(?:live|test)_[A-Za-z0-9]{16,}': ('k_live_', 'k_test_'),
    '\\bxox[abposr]-[A-Za-z0-9\\-]{10,}': ('xox',),
    '\\beyJ[A-Za-z0-9_\\-]+\\.[A-Za-z0-9_\\-]+\\.[A-Za-z0-9_\\-]+': ('eyj',),
    '\\bBearer\\s+(?P<secret>[A-Za-z0-9\\-._~+/]{16,}=*)': ('bearer',),
    '\\b(?:postgres(?:ql)?|mysql|mariadb|mongodb(?:\\+srv)?|rediss?|amqps?)://[^\\s:/@]*:(?P<secret>[^\\s@/]+)@': ('://',),  # noqa: E501
    '(?:postgres|mysql|mongodb)://[^:]+:(?P<secret>[^@]+)@': ('://',),
    'api[_\\-]?key[\\"\'\\s:=]+(?P<secret>[A-Za-z0-9\\-._~+/]+=*)': ('apikey', 'api_key', 'api-key'),  # noqa: E501
    'password[\\"\'\\s:=]+(?P<secret>[^\\s\\"\']+)': ('password',),
    '\\b(?:passwd|pwd)\\s*[:=]\\s*(?P<secret>[^\\s\\"\']+)': ('passwd', 'pwd'),
    'token[\\"\'\\s:=]+(?P<secret>[A-Za-z0-9\\-._~+/]+=*)': ('token',),
    'secret[\\"\'\\s:=]+(?P<secret>[A-Za-z0-9\\-._~+/]+=*)': ('secret',),
}  # fmt: skip


def _needles(patterns: Iterable[SecretPattern] = SECRET_PATTERNS) -> tuple[str, ...] | None:
    """Every needle the patterns need, or None when one pattern has none listed."""
    found: dict[str, None] = {}
    for pattern in patterns:
        needles = NEEDLES.get(pattern.regex.pattern)
        if needles is None:
            return None
        found.update(dict.fromkeys(needles))
    return tuple(found)


#: Context shown on each side of a secret in a preview, in characters.
PREVIEW_CONTEXT = 16
#: Other occurrences of a secret in the same text are masked too when the
#: secret is at least this long (shorter matches are prose, like "token is").
MIN_REPEAT_MASK = 4
_WHITESPACE = re.compile(r"\s+")

Key = tuple[tuple[str, Any], ...]


@dataclass(frozen=True)
class FindingLocation:
    """Where a finding's value lives, for redaction; never part of a report.

    ``key`` pairs the row's primary-key column(s) with their values. A rel row
    has no key of its own: ``rel_ends`` names its (from, to) node tables and
    ``key`` holds both ends' keys.
    """

    path: Path
    engine: str
    table: str
    column: str
    key: Key
    rel_ends: tuple[str, str] | None = None


@dataclass(frozen=True)
class AuditFinding:
    """One secret: where it is, its kind, and a preview in which it is masked."""

    store: str
    agent: str
    table: str
    id: str
    column: str
    kind: str
    preview: str
    location: FindingLocation = field(repr=False, compare=False)
    confidence: str = HIGH

    def to_dict(self) -> dict[str, str]:
        return {
            "store": self.store,
            "agent": self.agent,
            "table": self.table,
            "id": self.id,
            "column": self.column,
            "kind": self.kind,
            "confidence": self.confidence,
            "preview": self.preview,
        }


@dataclass
class AuditReport:
    """The findings of every store that could be read, and why others could not."""

    findings: list[AuditFinding] = field(default_factory=list)
    stores: list[Path] = field(default_factory=list)
    errors: list[MemoryError] = field(default_factory=list)
    #: Store -> why it was read at its last checkpoint (see :mod:`.writer_log`).
    notes: dict[Path, str] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"findings": [finding.to_dict() for finding in self.findings]}
        if self.notes:
            data["notes"] = {str(path): note for path, note in self.notes.items()}
        return data


# -- masking -----------------------------------------------------------------------------


def _mask_intervals(text: str, findings: list[SecretFinding]) -> list[tuple[int, int, int]]:
    """(start, end, finding index or -1) for each secret and each repeat of one."""
    intervals = [(f.start, f.end, i) for i, f in enumerate(findings)]
    for secret in {text[f.start : f.end] for f in findings}:
        if len(secret) < MIN_REPEAT_MASK:
            continue
        for match in re.finditer(re.escape(secret), text):
            intervals.append((match.start(), match.end(), -1))
    intervals.sort(key=lambda item: (item[0], -item[1]))
    kept: list[tuple[int, int, int]] = []
    for start, end, index in intervals:
        if kept and start < kept[-1][1]:
            continue
        kept.append((start, end, index))
    return kept


def _masked(text: str, findings: list[SecretFinding]) -> tuple[str, list[tuple[int, int, int]]]:
    """The text with every secret masked, and (start, end, finding index) of each marker."""
    pieces: list[str] = []
    markers: list[tuple[int, int, int]] = []
    cursor = length = 0
    for start, end, index in _mask_intervals(text, findings):
        pieces.append(text[cursor:start])
        length += start - cursor
        marker = f"[{findings[index].preview}]" if index >= 0 else "[masked]"
        markers.append((length, length + len(marker), index))
        pieces.append(marker)
        length += len(marker)
        cursor = end
    pieces.append(text[cursor:])
    return "".join(pieces), markers


def mask_secrets(text: str) -> str:
    """``text`` with every secret replaced by its kind and public marker."""
    return _masked(text, find_secrets(text))[0]


def _previews(text: str, findings: list[SecretFinding]) -> list[str]:
    """A short masked excerpt around each finding, on one line; markers are never cut."""
    masked, markers = _masked(text, findings)
    out = {}
    for start, end, index in markers:
        if index < 0:
            continue
        left = max(0, start - PREVIEW_CONTEXT)
        right = min(len(masked), end + PREVIEW_CONTEXT)
        for other_start, other_end, _ in markers:
            if other_start < left < other_end:
                left = other_start
            if other_start < right < other_end:
                right = other_end
        snippet = _WHITESPACE.sub(" ", masked[left:right]).strip()
        out[index] = ("..." if left else "") + snippet + ("..." if right < len(masked) else "")
    return [out[index] for index in range(len(findings))]


def _shown(value: Any) -> str:
    """A key or agent value as reported: masked too, should it hold a secret."""
    text = "" if value is None else str(value)
    return mask_secrets(text) if find_secrets(text) else text


# -- scanning ---------------------------------------------------------------------------

Row = tuple[Key, str, Any, Any]  # (key, shown id, agent, value)

#: Appended to the column a finding names when its value is base64 of JSON.
BASE64_LABEL = "(base64)"


class _Collector:
    """Turns candidate rows of one column into findings."""

    def __init__(self, store: Path, agent: str | None) -> None:
        self.store = store
        self.agent = agent
        self.findings: list[AuditFinding] = []

    def add(self, where: FindingLocation, rows: Iterable[Row]) -> None:
        for key, shown_id, agent, value in rows:
            if not isinstance(value, str) or not value:
                continue
            decoded = stored_json_text(value)
            text = value if decoded is None else decoded
            found = find_secrets(text)
            if not found:
                continue
            location = replace(where, key=key)
            column = where.column if decoded is None else f"{where.column} {BASE64_LABEL}"
            for finding, preview in zip(found, _previews(text, found), strict=True):
                self.findings.append(
                    AuditFinding(
                        str(self.store), _shown(agent), where.table, _shown(shown_id),
                        column, finding.kind, preview, location, finding.confidence,
                    )
                )  # fmt: skip


def _agent_column(names: Iterable[str]) -> str | None:
    names = set(names)
    return next((column for column in AGENT_COLUMNS if column in names), None)


# -- Kuzu ------------------------------------------------------------------------------


def _cypher_filters(value: str, needles: tuple[str, ...] | None) -> list[Filter]:
    """The candidate queries of one column; together they return every value
    that may hold a secret, in plain text or in base64 of JSON.

    The text is lowered once per row (lowering it per needle made the scan
    several times slower). Base64 needs its own query: the engine evaluates
    every branch of an OR on every row, so a regex there would run on all of
    them, where the cheap tests before it in an AND spare most rows.
    """
    if needles is None:
        return [Filter("", f"{value} IS NOT NULL", {})]
    tests = " OR ".join(f"low CONTAINS $n{i}" for i in range(len(needles)))
    shape = (
        f"substring({value}, 1, 1) IN ['e', 'W', 'I'] AND size({value}) % 4 = 0 "
        f"AND regexp_matches({value}, $b64)"
    )
    return [
        Filter(
            f", lower({value}) AS low",
            f"low IS NOT NULL AND ({tests})",
            {f"n{i}": needle for i, needle in enumerate(needles)},
        ),
        Filter("", shape, {"b64": BASE64_JSON_REGEX}),
    ]


@dataclass(frozen=True)
class Filter:
    """One candidate query's extra WITH column, WHERE test and parameters."""

    computed: str
    test: str
    params: dict[str, Any]


def _graph_candidates(
    graph: GraphStore,
    match: str,
    bound: str,
    value: str,
    scope: str,
    returns: str,
    params: dict[str, Any],
    needles: tuple[str, ...] | None,
) -> list[tuple[Any, ...]]:
    """The candidate rows of one column (``match`` binds the variables named in
    ``bound``); a row that two filters return comes once."""
    found: list[tuple[Any, ...]] = []
    for number, where in enumerate(_cypher_filters(value, needles)):
        # A WITH only where a value is computed: after one, the engine runs the
        # WHERE on every row instead of pushing its cheap tests into the scan.
        computed = f" WITH {bound}{where.computed}" if where.computed else ""
        rows = graph.rows(
            f"{match}{computed} WHERE {scope}{where.test} RETURN {returns}",
            {**params, **where.params},
        )
        seen = set(found) if number else set()
        found.extend(tuple(row) for row in rows if tuple(row) not in seen)
    return found


def _text_columns(columns: list[tuple[str, str]]) -> list[str]:
    return [name for name, kind in columns if kind.upper() == "STRING"]


def _scan_kuzu(graph: GraphStore, collector: _Collector) -> None:
    needles = _needles()
    agent = collector.agent
    keys: dict[str, tuple[str, str | None]] = {}
    for table in graph.node_tables():
        columns = graph.columns(table)
        key = graph.primary_key(table) or columns[0][0]
        owner = _agent_column(name for name, _ in columns)
        keys[table] = (key, owner)
        if agent is not None and owner is None:
            continue
        scope = f"n.{identifier(owner)} = $agent AND " if agent is not None and owner else ""
        owner_value = f"n.{identifier(owner)}" if owner else "''"
        for column in _text_columns(columns):
            rows = _graph_candidates(
                graph, f"MATCH (n:{identifier(table)})", "n", f"n.{identifier(column)}", scope,
                f"n.{identifier(key)} AS k, {owner_value} AS a, n.{identifier(column)} AS v",
                {"agent": agent} if scope else {}, needles,
            )  # fmt: skip
            where = FindingLocation(graph.path, graph.engine, table, column, ())
            collector.add(where, ((((key, r[0]),), str(r[0]), r[1], r[2]) for r in rows))
    for name, rel in graph.rel_tables().items():
        columns = _text_columns(graph.columns(name))
        for source, target in rel.pairs:
            _scan_kuzu_rel(graph, collector, name, (source, target), columns, keys, needles)


def _scan_kuzu_rel(
    graph: GraphStore,
    collector: _Collector,
    rel: str,
    ends: tuple[str, str],
    columns: list[str],
    keys: dict[str, tuple[str, str | None]],
    needles: tuple[str, ...] | None,
) -> None:
    """A rel row is named ``from-key->to-key``; its agent is its source node's."""
    (source_key, owner), (target_key, _) = keys[ends[0]], keys[ends[1]]
    if collector.agent is not None and owner is None:
        return
    scope = f"a.{identifier(owner)} = $agent AND " if collector.agent is not None and owner else ""
    owner_value = f"a.{identifier(owner)}" if owner else "''"
    for column in columns:
        rows = _graph_candidates(
            graph,
            f"MATCH (a:{identifier(ends[0])})-[r:{identifier(rel)}]->(b:{identifier(ends[1])})",
            "a, r, b", f"r.{identifier(column)}", scope,
            f"a.{identifier(source_key)} AS k1, b.{identifier(target_key)} AS k2, "
            f"{owner_value} AS o, r.{identifier(column)} AS v",
            {"agent": collector.agent} if scope else {}, needles,
        )  # fmt: skip
        where = FindingLocation(graph.path, graph.engine, rel, column, (), ends)
        collector.add(
            where,
            (
                (((source_key, r[0]), (target_key, r[1])), f"{r[0]}->{r[1]}", r[2], r[3])
                for r in rows
            ),
        )


# -- SQLite -----------------------------------------------------------------------------


def _sqlite_tables(connection: SqliteConnection) -> list[str]:
    """Ordinary tables; virtual tables (FTS) and their shadow tables are copies
    or indexes of ordinary ones, so scanning them would report a secret twice."""
    rows = connection.execute("SELECT name, sql FROM sqlite_master WHERE type = 'table'").fetchall()
    virtual = [name for name, sql in rows if (sql or "").upper().startswith("CREATE VIRTUAL")]
    return [
        name
        for name, _ in rows
        if not name.startswith("sqlite_")
        and name not in virtual
        and not any(name.startswith(f"{v}_") for v in virtual)
    ]


def _sqlite_key(connection: SqliteConnection, table: str) -> list[str]:
    info = connection.execute(f"PRAGMA table_info({identifier(table)})").fetchall()
    primary = [row[1] for row in sorted(info, key=lambda r: r[5]) if row[5]]
    if len(primary) == 1:
        return primary
    try:
        connection.execute(f"SELECT rowid FROM {identifier(table)} LIMIT 0")
    except SqliteStatementError:
        return primary  # WITHOUT ROWID: the composite key names the row
    return ["rowid"]


def _sqlite_candidates(column: str, needles: tuple[str, ...] | None) -> str:
    value = identifier(column)
    if needles is None:
        return f"typeof({value}) = 'text'"
    tests = " OR ".join(f"instr(lower({value}), :n{i}) > 0" for i in range(len(needles)))
    # BASE64_JSON_REGEX without a regex function: SQLite has only GLOB.
    encoded = (
        f"(length({value}) % 4 = 0 AND substr({value}, 1, 1) IN ('e', 'W', 'I') "
        f"AND {value} NOT GLOB '*[^A-Za-z0-9+/=]*')"
    )
    return f"typeof({value}) = 'text' AND ({tests} OR {encoded})"


def _sqlite_params(needles: tuple[str, ...] | None) -> dict[str, Any]:
    return {f"n{i}": needle for i, needle in enumerate(needles or ())}


def _sqlite_owner(table: str, names: list[str], rust: bool) -> str | None:
    """The SQL naming a row's agent: its agent column, or in amplihack-rs's store
    the agent of an edge's source fact; None for rows of no agent."""
    column = _agent_column(names)
    if column is not None:
        return identifier(column)
    return edge_owner_sql(table) if rust else None


def _scan_sqlite(connection: SqliteConnection, path: Path, collector: _Collector) -> None:
    needles = _needles()
    agent = collector.agent
    tables = _sqlite_tables(connection)
    rust = is_rs_hierarchical(tables)
    for table in tables:
        info = connection.execute(f"PRAGMA table_info({identifier(table)})").fetchall()
        names = [row[1] for row in info]
        owner = _sqlite_owner(table, names, rust)
        if agent is not None and owner is None:
            continue
        key = _sqlite_key(connection, table)
        scope = f"{owner} = :agent AND " if agent is not None and owner else ""
        owner_value = owner or "''"
        selected = ", ".join(identifier(k) if k != "rowid" else "rowid" for k in key)
        for column in names:
            rows = connection.execute(
                f"""SELECT {owner_value}, {identifier(column)}, {selected}
                    FROM {identifier(table)}
                    WHERE {scope}{_sqlite_candidates(column, needles)}""",
                {**_sqlite_params(needles), **({"agent": agent} if scope else {})},
            )
            where = FindingLocation(path, "sqlite", table, column, ())
            collector.add(
                where,
                (
                    (
                        tuple(zip(key, r[2:], strict=True)),
                        "/".join(str(v) for v in r[2:]),
                        r[0],
                        r[1],
                    )
                    for r in rows
                ),
            )


# -- entry points ------------------------------------------------------------------------


def audit_store(fmt: StoreFormat | str | Path, agent: str | None = None) -> list[AuditFinding]:
    """Every secret in one store (read-only), optionally only in ``agent``'s rows.

    With ``agent``, tables that have no agent column (agent_id or agent_name)
    are skipped: their rows belong to no agent.
    """
    fmt = fmt if isinstance(fmt, StoreFormat) else sniff(fmt)
    collector = _Collector(fmt.path, agent)
    if fmt.engine == "sqlite":
        connection = open_sqlite_readonly(fmt.path)
        try:
            _scan_sqlite(connection, fmt.path, collector)
        except SqliteDatabaseError as exc:
            raise CorruptStoreError(fmt.path, f"SQLite cannot read this file ({exc})") from None
        finally:
            connection.close()
    else:
        with open_graph(fmt.path) as graph:
            _scan_kuzu(graph, collector)
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
