"""What the credential audit finds and how it shows it: a finding, where its value
lives (for redaction), the report, previews with every secret masked, and the
collector that turns candidate rows into findings.

A preview shows a little context with every secret masked, so a report can be
shown, logged or mailed without spreading what it found. :data:`NEEDLES` lets a
store's own query skip the rows that cannot hold a secret.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from memexplorer.memory.secret_patterns import (
    HIGH,
    SECRET_PATTERNS,
    SecretFinding,
    SecretPattern,
    find_secrets,
)
from memexplorer.operator.record_dicts import values_of
from memexplorer.storage.exceptions import MemoryError
from memexplorer.storage.stored_json import stored_json_text

__all__ = [
    "BASE64_LABEL",
    "NEEDLES",
    "AuditFinding",
    "AuditReport",
    "Collector",
    "FindingLocation",
    "Key",
    "Row",
    "candidate_needles",
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


def candidate_needles(
    patterns: Iterable[SecretPattern] = SECRET_PATTERNS,
) -> tuple[str, ...] | None:
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


#: A finding's fields as reports show them, in their order.
_REPORTED = ("store", "agent", "table", "id", "column", "kind", "confidence", "preview")


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
        """Everything a report shows (never the location, which redaction alone reads)."""
        return values_of(self, _REPORTED)


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


def previews(text: str, findings: list[SecretFinding]) -> list[str]:
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


def shown(value: Any) -> str:
    """A key or agent value as reported: masked too, should it hold a secret."""
    text = "" if value is None else str(value)
    return mask_secrets(text) if find_secrets(text) else text


Row = tuple[Key, str, Any, Any]  # (key, shown id, agent, value)

#: Appended to the column a finding names when its value is base64 of JSON.
BASE64_LABEL = "(base64)"


class Collector:
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
            for finding, preview in zip(found, previews(text, found), strict=True):
                self.findings.append(
                    AuditFinding(
                        str(self.store), shown(agent), where.table, shown(shown_id),
                        column, finding.kind, preview, location, finding.confidence,
                    )
                )  # fmt: skip
