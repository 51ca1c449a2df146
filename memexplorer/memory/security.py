"""Access control and credential scrubbing for agent memory (the reference's ``security``).

Secrets are found by :mod:`.secret_patterns` and queries scored by
:mod:`.query_cost`; their names are importable here too, where the reference
and the audit look for them.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import Enum
from typing import TYPE_CHECKING

from memexplorer.memory.experience import (
    CONTEXT_MAX_LENGTH,
    OUTCOME_MAX_LENGTH,
    Experience,
    ExperienceType,
)
from memexplorer.memory.query_cost import COST_RULES, CostRule, QueryValidator
from memexplorer.memory.secret_patterns import (
    HIGH,
    LOW,
    REDACTION_TEXT,
    SECRET_PATTERNS,
    SecretFinding,
    SecretPattern,
    find_secrets,
)
from memexplorer.storage.exceptions import QueryCostExceededError, SecurityViolationError

if TYPE_CHECKING:
    from memexplorer.memory.store import ExperienceStore

__all__ = [
    "COST_RULES",
    "HIGH",
    "LOW",
    "REDACTION_TEXT",
    "SECRET_PATTERNS",
    "AgentCapabilities",
    "CostRule",
    "CredentialScrubber",
    "QueryCostExceededError",
    "QueryValidator",
    "ScopeLevel",
    "SecretFinding",
    "SecretPattern",
    "SecureMemoryBackend",
    "SecurityViolationError",
    "find_secrets",
]

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
# Enforcement
# ---------------------------------------------------------------------------


class SecureMemoryBackend:
    """A store wrapper that enforces capabilities and scrubs credentials before writing."""

    def __init__(self, store: ExperienceStore, capabilities: AgentCapabilities) -> None:
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
