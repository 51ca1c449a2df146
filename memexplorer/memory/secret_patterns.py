"""Finding secrets in text: one data table of patterns, one finding per secret.

:data:`SECRET_PATTERNS` holds every pattern of the reference library's
``CredentialScrubber.PATTERNS`` (so an audit flags at least what the reference
flagged, false positives such as "secret store" included) plus stricter, more
specific ones. The table is ordered from the most specific kind to the most
generic: where several patterns cover the same text, the finding is reported
once, under the earliest kind.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

__all__ = [
    "HIGH",
    "LOW",
    "REDACTION_TEXT",
    "SECRET_PATTERNS",
    "SecretFinding",
    "SecretPattern",
    "find_secrets",
]

#: What a secret is replaced with; a value that is only this was scrubbed before.
REDACTION_TEXT = "[REDACTED]"

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
