"""Access control, credential scrubbing and query cost limits for agent memory.

Secrets are found through one data table, :data:`SECRET_PATTERNS`. It holds every
pattern of the reference library's ``CredentialScrubber.PATTERNS`` (so an audit
flags at least what the reference flagged, false positives such as "secret store"
included) plus stricter, more specific ones. The table is ordered from the most
specific kind to the most generic: where several patterns cover the same text,
the finding is reported once, under the earliest kind.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, replace
from enum import Enum
from typing import Protocol

from memexplorer.memory.experience import (
    CONTEXT_MAX_LENGTH,
    OUTCOME_MAX_LENGTH,
    Experience,
    ExperienceType,
)
from memexplorer.storage.exceptions import QueryCostExceededError, SecurityViolationError

__all__ = [
    "COST_RULES",
    "HIGH",
    "LOW",
    "REDACTION_TEXT",
    "SECRET_PATTERNS",
    "AgentCapabilities",
    "CostRule",
    "CredentialScrubber",
    "ExperienceBackend",
    "QueryCostExceededError",
    "QueryValidator",
    "ScopeLevel",
    "SecretFinding",
    "SecretPattern",
    "SecureMemoryBackend",
    "SecurityViolationError",
    "find_secrets",
]

REDACTION_TEXT = "[REDACTED]"
SCRUBBED_TAG = "credential_scrubbed"


class ScopeLevel(Enum):
    """How far an agent's memory access reaches, from narrowest to widest."""

    SESSION_ONLY = "session_only"
    CROSS_SESSION_READ = "cross_session_read"
    CROSS_SESSION_WRITE = "cross_session_write"
    GLOBAL_READ = "global_read"
    GLOBAL_WRITE = "global_write"

    @property
    def rank(self) -> int:
        """Position in the scope order; a wider scope has a higher rank."""
        return list(ScopeLevel).index(self)


def _is_positive_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value > 0


@dataclass
class AgentCapabilities:
    """What one agent may do with memory; an empty type list allows every type."""

    scope: ScopeLevel
    allowed_experience_types: list[ExperienceType]
    max_query_cost: int
    can_access_patterns: bool
    memory_quota_mb: int

    def __post_init__(self) -> None:
        if not isinstance(self.scope, ScopeLevel):
            raise TypeError("scope must be ScopeLevel enum")
        if not isinstance(self.allowed_experience_types, list):
            raise TypeError("allowed_experience_types must be list")
        if not all(isinstance(t, ExperienceType) for t in self.allowed_experience_types):
            raise TypeError("allowed_experience_types must contain ExperienceType enums")
        if not _is_positive_int(self.max_query_cost):
            raise ValueError("max_query_cost must be positive integer")
        if not _is_positive_int(self.memory_quota_mb):
            raise ValueError("memory_quota_mb must be positive integer")

    def _allows_type(self, experience_type: ExperienceType) -> bool:
        return not self.allowed_experience_types or (
            experience_type in self.allowed_experience_types
        )

    def can_store_experience(self, experience: Experience) -> bool:
        """Whether the experience's type is one this agent may write."""
        return self._allows_type(experience.experience_type)

    def can_retrieve_experience_type(self, experience_type: ExperienceType) -> bool:
        """Whether this agent may read the type; with a type list, patterns need their own grant."""
        if not self.allowed_experience_types:
            return True
        if experience_type is ExperienceType.PATTERN and not self.can_access_patterns:
            return False
        return experience_type in self.allowed_experience_types

    def can_access_scope(self, target_scope: ScopeLevel) -> bool:
        """Whether the agent's scope reaches at least as far as ``target_scope``."""
        return self.scope.rank >= target_scope.rank


# ---------------------------------------------------------------------------
# Secret patterns
# ---------------------------------------------------------------------------


#: How sure a finding is: a key's own format (AKIA…, ghp_…, a PEM block) or a
#: keyword with a value assigned to it (``password: x``) is high; a keyword in
#: prose (``the password reset page``) is low.
HIGH, LOW = "high", "low"


@dataclass(frozen=True)
class SecretPattern:
    """One kind of secret: a regex whose ``secret`` group (or whole match) is the secret.

    ``reveal`` is how many leading characters of the secret are a public marker
    (``AKIA``, ``ghp_``) that a preview may show; keyword patterns reveal nothing.
    ``keyword`` patterns find a value after a word (password, token); they are
    sure only when ``=`` or ``:`` joins the two.
    """

    kind: str
    regex: re.Pattern[str]
    description: str
    reveal: int = 0
    keyword: bool = False

    def spans(self, text: str) -> Iterator[tuple[int, int]]:
        """The (start, end) of every secret this pattern finds in ``text``."""
        for start, end, _ in self.matches(text):
            yield start, end

    def matches(self, text: str) -> Iterator[tuple[int, int, str]]:
        """The (start, end, confidence) of every secret this pattern finds in ``text``."""
        group = "secret" if "secret" in self.regex.groupindex else 0
        for match in self.regex.finditer(text):
            start, end = match.span(group)
            if end > start:
                yield start, end, self._confidence(text[match.start() : start])

    def _confidence(self, lead: str) -> str:
        if not self.keyword:
            return HIGH
        return HIGH if "=" in lead or ":" in lead else LOW


def _pattern(
    kind: str,
    regex: str,
    description: str,
    reveal: int = 0,
    flags: int = 0,
    keyword: bool = False,
) -> SecretPattern:
    return SecretPattern(kind, re.compile(regex, flags), description, reveal, keyword)


_I = re.IGNORECASE
_PEM_LABEL = r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"
# The key body: up to the END line when there is one, else the base64 chunks that follow.
_PEM_BODY = (
    r"(?:[\s\S]*?-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"
    r"|(?:\s*[A-Za-z0-9+/=]{16,})*)"
)
_VALUE = r"[A-Za-z0-9\-._~+/]+=*"

SECRET_PATTERNS: tuple[SecretPattern, ...] = (
    _pattern("ssh_key", r"-----BEGIN (?:RSA|DSA|EC|OPENSSH) PRIVATE KEY-----",
             "SSH private key header (reference pattern)"),
    _pattern("private_key", _PEM_LABEL + _PEM_BODY,
             "PEM private key: the header and the key body that follows it"),
    _pattern("aws_key", r"(?:AKIA|ASIA)[0-9A-Z]{16}", "AWS access key id", reveal=4),
    _pattern("aws_secret", r"aws_secret_access_key[\"'\s:=]+(?P<secret>[A-Za-z0-9/+=]{40})",
             "AWS secret access key after its variable name", flags=_I),
    _pattern("azure_key", r"AccountKey=(?P<secret>[A-Za-z0-9+/]{86}==)",
             "Azure storage account key in a connection string"),
    _pattern("github_token", r"gh[pousr]_[A-Za-z0-9]{36,}",
             "GitHub token (ghp_, gho_, ghu_, ghs_, ghr_)", reveal=4),
    _pattern("github_token", r"github_pat_[A-Za-z0-9_]{22,}",
             "GitHub fine-grained personal access token", reveal=11),
    _pattern("openai_key", r"sk-(?:proj|svcacct|admin)-[A-Za-z0-9_\-]{20,}",
             "OpenAI project, service-account or admin key", reveal=3),
    _pattern("openai_key", r"sk-[A-Za-z0-9]{20,}", "OpenAI-style secret key", reveal=3),
    _pattern("stripe_key", r"\b[rs]k_(?:live|test)_[A-Za-z0-9]{16,}",
             "Stripe secret or restricted key", reveal=3),
    _pattern("slack_token", r"\bxox[abposr]-[A-Za-z0-9\-]{10,}", "Slack token", reveal=4),
    _pattern("jwt", r"\beyJ[A-Za-z0-9_\-]+\.[A-Za-z0-9_\-]+\.[A-Za-z0-9_\-]+",
             "JSON Web Token (three base64url segments)", reveal=3),
    _pattern("bearer_token", r"\bBearer\s+(?P<secret>[A-Za-z0-9\-._~+/]{16,}=*)",
             "HTTP bearer credential"),
    _pattern("db_url",
             r"\b(?:postgres(?:ql)?|mysql|mariadb|mongodb(?:\+srv)?|rediss?|amqps?)://"
             r"[^\s:/@]*:(?P<secret>[^\s@/]+)@",
             "Database or broker URL with a password", flags=_I),
    _pattern("db_url", r"(?:postgres|mysql|mongodb)://[^:]+:(?P<secret>[^@]+)@",
             "Database URL with a password (reference pattern)"),
    _pattern("api_key", rf"api[_\-]?key[\"'\s:=]+(?P<secret>{_VALUE})",
             "Value after api_key, api-key or apikey", flags=_I, keyword=True),
    _pattern("password", r"password[\"'\s:=]+(?P<secret>[^\s\"']+)",
             "Value after the word password (reference pattern; prose too)",
             flags=_I, keyword=True),
    _pattern("password", r"\b(?:passwd|pwd)\s*[:=]\s*(?P<secret>[^\s\"']+)",
             "Value assigned to passwd or pwd", flags=_I, keyword=True),
    _pattern("token", rf"token[\"'\s:=]+(?P<secret>{_VALUE})",
             "Value after the word token (reference pattern; prose too)",
             flags=_I, keyword=True),
    _pattern("secret", rf"secret[\"'\s:=]+(?P<secret>{_VALUE})",
             "Value after the word secret (reference pattern; prose too)",
             flags=_I, keyword=True),
)  # fmt: skip


@dataclass(frozen=True)
class SecretFinding:
    """One secret in a text: its kind, where it is, and a preview that never contains it."""

    kind: str
    start: int
    end: int
    preview: str
    confidence: str = HIGH


@dataclass
class _Span:
    """A candidate secret; ``rank`` is its pattern's row, ``lead`` where that pattern matched."""

    start: int
    end: int
    rank: int
    lead: int
    confidence: str = HIGH

    def absorb(self, other: _Span) -> None:
        """Grow to cover ``other``; keep the more specific (lower-ranked) pattern,
        and be sure when either pattern is."""
        if other.rank < self.rank:
            self.rank, self.lead = other.rank, other.lead
        self.end = max(self.end, other.end)
        if other.confidence == HIGH:
            self.confidence = HIGH

    @property
    def marker_leads(self) -> bool:
        """Whether the span starts where its pattern matched, so its public marker is first."""
        return self.lead == self.start


_REDACTED_TAIL = ".,;:!?)]}>"


def _already_redacted(secret: str) -> bool:
    """A value that is just our own marker (maybe with punctuation) was scrubbed before."""
    if not secret.startswith(REDACTION_TEXT):
        return False
    return not secret[len(REDACTION_TEXT) :].strip(_REDACTED_TAIL)


def _candidate_spans(text: str) -> list[_Span]:
    candidates = [
        _Span(start, end, rank, start, confidence)
        for rank, pattern in enumerate(SECRET_PATTERNS)
        for start, end, confidence in pattern.matches(text)
        if not _already_redacted(text[start:end])
    ]
    candidates.sort(key=lambda span: (span.start, span.rank))
    return candidates


def _merge_overlaps(candidates: list[_Span]) -> list[_Span]:
    """Overlapping spans become one, so each secret is reported and redacted once."""
    merged: list[_Span] = []
    for span in candidates:
        if merged and span.start < merged[-1].end:
            merged[-1].absorb(span)
        else:
            merged.append(_Span(span.start, span.end, span.rank, span.lead, span.confidence))
    return merged


def _preview(pattern: SecretPattern, secret: str, show_marker: bool) -> str:
    """The kind and the secret's public marker; never text that contains the secret."""
    shown = secret[: min(pattern.reveal, len(secret) // 2)] if show_marker else ""
    for candidate in (f"{pattern.kind}:{shown}***", f"{pattern.kind}:***", pattern.kind):
        if secret not in candidate:
            return candidate
    return ""


def find_secrets(text: str) -> list[SecretFinding]:
    """Every secret in ``text``, in order, one finding per non-overlapping span."""
    findings = []
    for span in _merge_overlaps(_candidate_spans(text)):
        pattern = SECRET_PATTERNS[span.rank]
        preview = _preview(pattern, text[span.start : span.end], span.marker_leads)
        findings.append(SecretFinding(pattern.kind, span.start, span.end, preview, span.confidence))
    return findings


def _fit(text: str, limit: int) -> str:
    """Markers are longer than short secrets; cut the tail rather than fail validation."""
    return text if len(text) <= limit else text[:limit]


class CredentialScrubber:
    """Detects and redacts credentials using :data:`SECRET_PATTERNS`."""

    PATTERNS: tuple[SecretPattern, ...] = SECRET_PATTERNS
    REDACTION_TEXT = REDACTION_TEXT

    def contains_credentials(self, text: str) -> bool:
        """Whether any pattern finds a secret in ``text``."""
        return bool(find_secrets(text))

    def scrub_text(self, text: str, *, include_low: bool = True) -> tuple[str, bool]:
        """``text`` with each secret replaced by the marker once, and whether any was;
        without ``include_low`` only the findings of high confidence are."""
        findings = [
            finding for finding in find_secrets(text) if include_low or finding.confidence == HIGH
        ]
        pieces: list[str] = []
        cursor = 0
        for finding in findings:
            pieces += [text[cursor : finding.start], self.REDACTION_TEXT]
            cursor = finding.end
        pieces.append(text[cursor:])
        return "".join(pieces), bool(findings)

    _scrub_text = scrub_text  # the reference's name, which its own harness calls

    def scrub_experience(self, experience: Experience) -> tuple[Experience, bool]:
        """A copy with secrets in context and outcome redacted and tagged; clean ones unchanged."""
        context, context_changed = self.scrub_text(experience.context)
        outcome, outcome_changed = self.scrub_text(experience.outcome)
        if not (context_changed or outcome_changed):
            return experience, False
        tags = list(experience.tags)
        if SCRUBBED_TAG not in tags:
            tags.append(SCRUBBED_TAG)
        scrubbed = replace(
            experience,
            context=_fit(context, CONTEXT_MAX_LENGTH),
            outcome=_fit(outcome, OUTCOME_MAX_LENGTH),
            metadata=dict(experience.metadata),
            tags=tags,
        )
        return scrubbed, True


# ---------------------------------------------------------------------------
# Query cost and safety
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class CostRule:
    """A feature of a query that makes it more expensive; ``per_match`` charges each one."""

    name: str
    regex: re.Pattern[str]
    points: int
    per_match: bool = False

    def cost(self, sql: str) -> int:
        if self.per_match:
            return self.points * len(self.regex.findall(sql))
        return self.points if self.regex.search(sql) else 0


_BASE_QUERY_COST = 1
_SELECT = re.compile(r"\bSELECT\b", re.IGNORECASE)
_LIMIT = re.compile(r"\bLIMIT\b", re.IGNORECASE)
_STARTS_WITH_SELECT = re.compile(r"^\s*SELECT\b", re.IGNORECASE)
_WRITE_KEYWORDS = re.compile(
    r"\b(?:DELETE|UPDATE|INSERT|DROP|TRUNCATE|ALTER|CREATE|REPLACE|GRANT|REVOKE"
    r"|ATTACH|DETACH|PRAGMA|VACUUM|MERGE)\b",
    re.IGNORECASE,
)

COST_RULES: tuple[CostRule, ...] = (
    CostRule("full_scan", re.compile(r"SELECT\s+\*\s+FROM\s+\w+", re.IGNORECASE), 10),
    CostRule("join", re.compile(r"\bJOIN\b", re.IGNORECASE), 5, per_match=True),
    CostRule("subquery", re.compile(r"SELECT.*\(.*SELECT", re.IGNORECASE | re.DOTALL), 3),
    CostRule("order_by", re.compile(r"\bORDER\s+BY\b", re.IGNORECASE), 2),
)
_UNBOUNDED_COST = 20


class QueryValidator:
    """Scores queries so an agent cannot run unbounded or very expensive ones.

    The score is the reference's: 1, plus 10 for ``SELECT * FROM``, 5 per JOIN,
    3 for a subquery, 2 for ORDER BY, and 20 for a SELECT without LIMIT.
    """

    COST_RULES: tuple[CostRule, ...] = COST_RULES

    def estimate_cost(self, sql: str) -> int:
        """The query's cost score."""
        cost = _BASE_QUERY_COST + sum(rule.cost(sql) for rule in self.COST_RULES)
        if _SELECT.search(sql) and not _LIMIT.search(sql):
            cost += _UNBOUNDED_COST
        return cost

    def validate_query(self, sql: str, max_cost: int) -> None:
        """Raise :class:`QueryCostExceededError` when the cost is above ``max_cost``."""
        cost = self.estimate_cost(sql)
        if cost > max_cost:
            raise QueryCostExceededError(
                f"Query cost ({cost}) exceeds limit ({max_cost}). "
                "Add a LIMIT, use fewer JOINs or simplify the query."
            )

    def is_safe_query(self, sql: str) -> bool:
        """True only for a read: it starts with SELECT and names no writing statement."""
        return bool(_STARTS_WITH_SELECT.match(sql)) and not _WRITE_KEYWORDS.search(sql)


# ---------------------------------------------------------------------------
# Enforcement
# ---------------------------------------------------------------------------


class ExperienceBackend(Protocol):
    """What :class:`SecureMemoryBackend` needs from a store (ExperienceStore has it)."""

    def add(self, experience: Experience) -> str: ...

    def search(
        self,
        query: str,
        experience_type: ExperienceType | None = None,
        min_confidence: float = 0.0,
        limit: int = 10,
    ) -> list[Experience]: ...


class SecureMemoryBackend:
    """A store wrapper that enforces capabilities and scrubs credentials before writing."""

    def __init__(self, store: ExperienceBackend, capabilities: AgentCapabilities) -> None:
        self.store = store
        self.capabilities = capabilities
        self.scrubber = CredentialScrubber()
        self.validator = QueryValidator()

    def add_experience(self, experience: Experience) -> str:
        """Store the experience, credentials redacted, if the agent may write its type."""
        if not self.capabilities.can_store_experience(experience):
            raise SecurityViolationError(
                f"Agent not allowed to store {experience.experience_type.value} experiences"
            )
        scrubbed, _ = self.scrubber.scrub_experience(experience)
        return self.store.add(scrubbed)

    def search(
        self,
        query: str,
        experience_type: ExperienceType | None = None,
        min_confidence: float = 0.0,
        limit: int = 10,
    ) -> list[Experience]:
        """Search the store; asking for a forbidden type raises, and results of
        forbidden types are left out of an unfiltered search."""
        capabilities = self.capabilities
        if experience_type is not None and not capabilities.can_retrieve_experience_type(
            experience_type
        ):
            raise SecurityViolationError(
                f"Agent not allowed to retrieve {experience_type.value} experiences"
            )
        results = self.store.search(
            query=query,
            experience_type=experience_type,
            min_confidence=min_confidence,
            limit=limit,
        )
        return [
            exp for exp in results if capabilities.can_retrieve_experience_type(exp.experience_type)
        ]

    def validate_custom_query(self, sql: str) -> None:
        """Allow only SELECT queries whose cost is within the agent's limit."""
        if not self.validator.is_safe_query(sql):
            raise SecurityViolationError("Only SELECT queries are allowed")
        self.validator.validate_query(sql, self.capabilities.max_query_cost)
