"""Capabilities, credential scrubbing, query validation and the secure backend (API.md §6)."""

from __future__ import annotations

import re
from dataclasses import FrozenInstanceError
from datetime import datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memexplorer.memory.experience import Experience, ExperienceType
from memexplorer.memory.security import (
    SECRET_PATTERNS,
    AgentCapabilities,
    CredentialScrubber,
    QueryValidator,
    ScopeLevel,
    SecretFinding,
    SecretPattern,
    SecureMemoryBackend,
    find_secrets,
)
from memexplorer.storage.exceptions import (
    MemoryError,
    QueryCostExceededError,
    SecurityViolationError,
)

# The reference library's CredentialScrubber.PATTERNS: whatever they flag, we must flag.
REFERENCE_PATTERNS = {
    "aws_key": r"AKIA[0-9A-Z]{16}",
    "aws_secret": r"aws_secret_access_key[\"'\s:=]+([A-Za-z0-9/+=]{40})",
    "openai_key": r"sk-[A-Za-z0-9]{20,}",
    "github_token": r"gh[pousr]_[A-Za-z0-9]{36,}",
    "azure_key": r"AccountKey=[A-Za-z0-9+/]{86}==",
    "password": r"(?i)password[\"'\s:=]+([^\s\"']+)",
    "token": r"(?i)token[\"'\s:=]+([A-Za-z0-9\-._~+/]+=*)",
    "api_key": r"(?i)api[_\-]?key[\"'\s:=]+([A-Za-z0-9\-._~+/]+=*)",
    "secret": r"(?i)secret[\"'\s:=]+([A-Za-z0-9\-._~+/]+=*)",
    "ssh_key": r"-----BEGIN (?:RSA|DSA|EC|OPENSSH) PRIVATE KEY-----",
    "db_url": r"(?:postgres|mysql|mongodb)://[^:]+:([^@]+)@",
}

AWS_KEY = "AKIAIOSFODNN7EXAMPLE"
OPENAI_KEY = "sk-1234567890abcdefghijklmnopqrstuvwxyzABCDEFGH"
GITHUB_TOKEN = "ghp_1234567890abcdefghijklmnopqrstuvwxyz"


def caps(**overrides: object) -> AgentCapabilities:
    fields: dict[str, object] = {
        "scope": ScopeLevel.SESSION_ONLY,
        "allowed_experience_types": [ExperienceType.SUCCESS, ExperienceType.FAILURE],
        "max_query_cost": 50,
        "can_access_patterns": False,
        "memory_quota_mb": 10,
    }
    fields.update(overrides)
    return AgentCapabilities(**fields)  # type: ignore[arg-type]


def experience(kind: ExperienceType = ExperienceType.SUCCESS, **overrides: object) -> Experience:
    fields: dict[str, object] = {
        "experience_type": kind,
        "context": "Connected to API",
        "outcome": "Successfully authenticated",
        "confidence": 0.9,
        "timestamp": datetime(2026, 3, 1, 8, 0, 0),
    }
    fields.update(overrides)
    return Experience(**fields)  # type: ignore[arg-type]


# ---------------------------------------------------------------------------
# ScopeLevel and AgentCapabilities
# ---------------------------------------------------------------------------


def test_scope_levels_in_order_with_lower_case_values():
    assert [(s.name, s.value) for s in ScopeLevel] == [
        ("SESSION_ONLY", "session_only"),
        ("CROSS_SESSION_READ", "cross_session_read"),
        ("CROSS_SESSION_WRITE", "cross_session_write"),
        ("GLOBAL_READ", "global_read"),
        ("GLOBAL_WRITE", "global_write"),
    ]


def test_capabilities_keep_their_fields():
    capabilities = caps(allowed_experience_types=[], can_access_patterns=True)
    assert capabilities.scope is ScopeLevel.SESSION_ONLY
    assert capabilities.allowed_experience_types == []
    assert capabilities.max_query_cost == 50
    assert capabilities.can_access_patterns is True
    assert capabilities.memory_quota_mb == 10


@pytest.mark.parametrize(
    ("overrides", "error", "message"),
    [
        ({"scope": "session_only"}, TypeError, "scope must be ScopeLevel enum"),
        ({"allowed_experience_types": ExperienceType.SUCCESS}, TypeError,
         "allowed_experience_types must be list"),
        ({"allowed_experience_types": (ExperienceType.SUCCESS,)}, TypeError,
         "allowed_experience_types must be list"),
        ({"allowed_experience_types": ["success"]}, TypeError,
         "allowed_experience_types must contain ExperienceType enums"),
        ({"allowed_experience_types": [ExperienceType.SUCCESS, None]}, TypeError,
         "allowed_experience_types must contain ExperienceType enums"),
        ({"max_query_cost": 0}, ValueError, "max_query_cost must be positive integer"),
        ({"max_query_cost": -3}, ValueError, "max_query_cost must be positive integer"),
        ({"max_query_cost": 10.5}, ValueError, "max_query_cost must be positive integer"),
        ({"max_query_cost": True}, ValueError, "max_query_cost must be positive integer"),
        ({"memory_quota_mb": 0}, ValueError, "memory_quota_mb must be positive integer"),
        ({"memory_quota_mb": -5}, ValueError, "memory_quota_mb must be positive integer"),
        ({"memory_quota_mb": "10"}, ValueError, "memory_quota_mb must be positive integer"),
    ],
)  # fmt: skip
def test_capabilities_validation(overrides, error, message):
    with pytest.raises(error, match=f"^{message}$"):
        caps(**overrides)


def test_minimum_positive_limits_are_accepted():
    capabilities = caps(max_query_cost=1, memory_quota_mb=1)
    assert (capabilities.max_query_cost, capabilities.memory_quota_mb) == (1, 1)


def test_store_permission_follows_the_type_list():
    restricted = caps()
    assert restricted.can_store_experience(experience(ExperienceType.SUCCESS)) is True
    assert restricted.can_store_experience(experience(ExperienceType.FAILURE)) is True
    assert restricted.can_store_experience(experience(ExperienceType.PATTERN)) is False
    assert restricted.can_store_experience(experience(ExperienceType.INSIGHT)) is False


def test_empty_type_list_allows_every_type():
    open_caps = caps(allowed_experience_types=[], can_access_patterns=False)
    for kind in ExperienceType:
        assert open_caps.can_store_experience(experience(kind)) is True
        assert open_caps.can_retrieve_experience_type(kind) is True


def test_retrieve_permission():
    restricted = caps()
    assert restricted.can_retrieve_experience_type(ExperienceType.SUCCESS) is True
    assert restricted.can_retrieve_experience_type(ExperienceType.INSIGHT) is False
    assert restricted.can_retrieve_experience_type(ExperienceType.PATTERN) is False


def test_patterns_need_both_the_list_and_the_grant():
    listed_no_grant = caps(allowed_experience_types=[ExperienceType.PATTERN])
    assert listed_no_grant.can_retrieve_experience_type(ExperienceType.PATTERN) is False
    assert listed_no_grant.can_store_experience(experience(ExperienceType.PATTERN)) is True
    granted = caps(allowed_experience_types=[ExperienceType.PATTERN], can_access_patterns=True)
    assert granted.can_retrieve_experience_type(ExperienceType.PATTERN) is True
    granted_unlisted = caps(can_access_patterns=True)
    assert granted_unlisted.can_retrieve_experience_type(ExperienceType.PATTERN) is False


@pytest.mark.parametrize("own", list(ScopeLevel))
def test_scope_access_is_true_up_to_the_own_level(own):
    levels = list(ScopeLevel)
    capabilities = caps(scope=own)
    for target in levels:
        allowed = capabilities.can_access_scope(target)
        assert allowed is (levels.index(target) <= levels.index(own))


# ---------------------------------------------------------------------------
# The secret table and find_secrets
# ---------------------------------------------------------------------------


def test_secret_table_is_frozen_data():
    assert isinstance(SECRET_PATTERNS, tuple)
    assert all(isinstance(p, SecretPattern) for p in SECRET_PATTERNS)
    assert all(isinstance(p.regex, re.Pattern) and p.description for p in SECRET_PATTERNS)
    with pytest.raises(FrozenInstanceError):
        SECRET_PATTERNS[0].kind = "other"  # type: ignore[misc]
    with pytest.raises(FrozenInstanceError):
        SecretFinding("k", 0, 1, "p").start = 3  # type: ignore[misc]
    assert set(REFERENCE_PATTERNS) <= {p.kind for p in SECRET_PATTERNS}
    assert CredentialScrubber.PATTERNS is SECRET_PATTERNS


@pytest.mark.parametrize(
    "text",
    [
        f"My key is {AWS_KEY}",
        f"OpenAI key: {OPENAI_KEY}",
        f"Token: {GITHUB_TOKEN}",
        "password: mysecretpass123",
        "api_key: abc123xyz789",
        "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQ...",
        "postgres://user:secretpass@localhost:5432/db",
    ],
)
def test_detects_the_documented_credentials(text):
    assert CredentialScrubber().contains_credentials(text) is True


@pytest.mark.parametrize(
    "text",
    [
        "This is a normal log message with no credentials",
        "",
        "sk-short",
        "AKIA1234",
        "postgres://localhost:5432/db",
        "ghp_tooShort123",
    ],
)
def test_clean_text_is_not_flagged(text):
    assert CredentialScrubber().contains_credentials(text) is False
    assert find_secrets(text) == []


@pytest.mark.parametrize(
    ("text", "kind", "secret"),
    [
        (f"key {AWS_KEY} leaked", "aws_key", AWS_KEY),
        ("temp key ASIAZZZZYYYYXXXXWWWW", "aws_key", "ASIAZZZZYYYYXXXXWWWW"),
        (f"key: {OPENAI_KEY}", "openai_key", OPENAI_KEY),
        ("key sk-proj-Ab_cD-ef1234567890ghijKL", "openai_key", "sk-proj-Ab_cD-ef1234567890ghijKL"),
        (f"found {GITHUB_TOKEN}", "github_token", GITHUB_TOKEN),
        ("gho_" + "a" * 36, "github_token", "gho_" + "a" * 36),
        ("ghu_" + "B" * 40, "github_token", "ghu_" + "B" * 40),
        ("ghs_" + "1" * 36, "github_token", "ghs_" + "1" * 36),
        ("ghr_" + "z" * 36, "github_token", "ghr_" + "z" * 36),
        ("pat github_pat_11ABCDEFG0123456789_abcdefghijklmnop", "github_token",
         "github_pat_11ABCDEFG0123456789_abcdefghijklmnop"),
        ("password: hunter22", "password", "hunter22"),
        ("PASSWORD=hunter22", "password", "hunter22"),
        ("db passwd = s3cr3t!", "password", "s3cr3t!"),
        ("api_key: abc123xyz789", "api_key", "abc123xyz789"),
        ("api-key=abc123xyz789", "api_key", "abc123xyz789"),
        ("APIKEY abc123xyz789", "api_key", "abc123xyz789"),
        ("postgres://user:pw1@host/db", "db_url", "pw1"),
        ("postgresql://user:pw2@host/db", "db_url", "pw2"),
        ("mysql://root:pw3@10.0.0.1:3306/x", "db_url", "pw3"),
        ("mongodb://app:pw4@mongo/x", "db_url", "pw4"),
        ("mongodb+srv://app:pw5@cluster0.example.net/x", "db_url", "pw5"),
        ("redis://:pw6@cache:6379/0", "db_url", "pw6"),
        ("redis://default:pw7@cache:6379", "db_url", "pw7"),
        ("jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl ok", "jwt",
         "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl"),
        ("aws_secret_access_key=" + "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "aws_secret",
         "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
        ("AccountKey=" + "A" * 86 + "==;", "azure_key", "A" * 86 + "=="),
        ("token=hvs.FAKEv4ultT0ken123", "token", "hvs.FAKEv4ultT0ken123"),
        ("client secret: abcDEF123", "secret", "abcDEF123"),
    ],
)  # fmt: skip
def test_each_kind_is_found_with_its_exact_span(text, kind, secret):
    findings = find_secrets(text)
    assert [(f.kind, text[f.start : f.end]) for f in findings] == [(kind, secret)]
    assert secret not in findings[0].preview
    assert findings[0].preview.startswith(kind)


@pytest.mark.parametrize(
    ("header", "kind"),
    [
        ("-----BEGIN RSA PRIVATE KEY-----", "ssh_key"),
        ("-----BEGIN OPENSSH PRIVATE KEY-----", "ssh_key"),
        ("-----BEGIN EC PRIVATE KEY-----", "ssh_key"),
        ("-----BEGIN DSA PRIVATE KEY-----", "ssh_key"),
        ("-----BEGIN PRIVATE KEY-----", "private_key"),
        ("-----BEGIN ENCRYPTED PRIVATE KEY-----", "private_key"),
        ("-----BEGIN PGP PRIVATE KEY BLOCK-----", "private_key"),
    ],
)
def test_private_keys_are_redacted_with_their_body(header, kind):
    footer = header.replace("BEGIN", "END")
    body = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC\nBKcwggSjAgEAAoIBAQC7abcdefabcdef"
    text = f"config:\n{header}\n{body}\n{footer}\nafter"
    scrubbed, changed = CredentialScrubber().scrub_text(text)
    assert changed is True
    assert scrubbed == "config:\n[REDACTED]\nafter"
    assert [f.kind for f in find_secrets(text)] == [kind]


def test_private_key_body_without_footer_is_redacted_too():
    text = "pasted: -----BEGIN OPENSSH PRIVATE KEY----- b3BlbnNzaC1rZXktdjEAAAAABG5v (cut)"
    scrubbed, _ = CredentialScrubber().scrub_text(text)
    assert scrubbed == "pasted: [REDACTED] (cut)"


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        (f"runner registered with token {GITHUB_TOKEN}", "github_token"),
        ("api_key=sk-FAKEresearch1234567890abcdef", "openai_key"),
        ("api_key=sk_live_FAKE51HxQ2abcDEF7890ghij", "stripe_key"),
        ("-----BEGIN RSA PRIVATE KEY-----", "ssh_key"),
        ("password=postgres://u:pw@host/db", "db_url"),
        ("Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl", "jwt"),
    ],
)
def test_overlapping_patterns_report_one_finding_of_the_most_specific_kind(text, kind):
    findings = find_secrets(text)
    assert len(findings) == 1
    assert findings[0].kind == kind


def test_previews_show_only_public_markers():
    text = f"keys {AWS_KEY} and {GITHUB_TOKEN} and password=hunter22"
    previews = [f.preview for f in find_secrets(text)]
    assert previews == ["aws_key:AKIA***", "github_token:ghp_***", "password:***"]


def test_a_marker_is_not_shown_when_a_generic_match_starts_earlier():
    # The generic api_key value starts before the AWS key, so its first characters are secret.
    text = "api_key=xyz" + AWS_KEY
    [finding] = find_secrets(text)
    assert finding.kind == "aws_key"
    assert text[finding.start : finding.end] == "xyz" + AWS_KEY
    assert finding.preview == "aws_key:***"


def test_short_secrets_never_appear_in_previews():
    for text in ("password=p", "password=a", "password=w", "password=*", "password=:"):
        [finding] = find_secrets(text)
        assert text[finding.start : finding.end] not in finding.preview


def test_reference_false_positives_are_kept():
    # MANIFEST's audit flagged these with the reference patterns; we flag them too.
    assert [f.kind for f in find_secrets('["Update secret store", "Deploy"]')] == ["secret"]
    assert [f.kind for f in find_secrets("Password resets are sent by mail")] == ["password"]
    assert [f.kind for f in find_secrets("run token validation first")] == ["token"]


secret_examples = st.one_of(
    st.from_regex(r"AKIA[0-9A-Z]{16}", fullmatch=True),
    st.from_regex(r"sk-[A-Za-z0-9]{20,40}", fullmatch=True),
    st.from_regex(r"gh[pousr]_[A-Za-z0-9]{36,40}", fullmatch=True),
    st.from_regex(r"github_pat_[A-Za-z0-9_]{22,40}", fullmatch=True),
    st.from_regex(r"eyJ[A-Za-z0-9_\-]{4,12}\.[A-Za-z0-9_\-]{4,12}\.[A-Za-z0-9_\-]{4,12}",
                  fullmatch=True),
)  # fmt: skip
filler = st.text(alphabet="abcdefgh ,.:;!?()\n", max_size=30)


@settings(max_examples=150)
@given(before=filler, secret=secret_examples, after=filler)
def test_scrubbing_never_leaves_a_token(before, secret, after):
    text = f"{before} {secret} {after}"
    scrubbed, changed = CredentialScrubber().scrub_text(text)
    assert changed is True
    assert secret not in scrubbed
    assert "[REDACTED]" in scrubbed
    assert all(secret not in f.preview for f in find_secrets(text))


keyword_values = st.text(
    alphabet=st.characters(blacklist_categories=("Z", "C"), blacklist_characters="\"'"),
    min_size=1,
    max_size=20,
).filter(lambda value: value[0] not in ":=" and not value.startswith("[REDACTED]"))


@settings(max_examples=150)
@given(
    keyword=st.sampled_from(["password: ", "password=", "PASSWORD = ", "pwd=", "passwd: "]),
    value=keyword_values,
    after=filler,
)
def test_scrubbing_never_leaves_a_password(keyword, value, after):
    text = f"login {keyword}{value} {after}"
    scrubbed, changed = CredentialScrubber().scrub_text(text)
    assert changed is True
    assert scrubbed == f"login {keyword}[REDACTED] {after}"
    assert all(text[f.start : f.end] not in f.preview for f in find_secrets(text))


@settings(max_examples=200)
@given(st.text(max_size=120))
def test_findings_are_ordered_disjoint_and_previews_safe(text):
    findings = find_secrets(text)
    cursor = 0
    for finding in findings:
        assert cursor <= finding.start < finding.end <= len(text)
        assert text[finding.start : finding.end] not in finding.preview
        cursor = finding.end


@settings(max_examples=120)
@given(
    st.sampled_from(sorted(REFERENCE_PATTERNS)).flatmap(
        lambda kind: st.from_regex(REFERENCE_PATTERNS[kind])
    )
)
def test_whatever_the_reference_flags_is_flagged(text):
    assert any(re.search(regex, text) for regex in REFERENCE_PATTERNS.values())
    assert find_secrets(text)


# ---------------------------------------------------------------------------
# Scrubbing
# ---------------------------------------------------------------------------


def test_scrub_text_replaces_each_secret_once():
    scrubber = CredentialScrubber()
    text = f"AWS key {AWS_KEY} and OpenAI sk-1234567890abcdefghijklmnop"
    scrubbed, changed = scrubber.scrub_text(text)
    assert changed is True
    assert scrubbed == "AWS key [REDACTED] and OpenAI [REDACTED]"
    assert scrubber._scrub_text(text) == (scrubbed, True)


def test_scrub_text_keeps_clean_text():
    assert CredentialScrubber().scrub_text("nothing to see") == ("nothing to see", False)


@pytest.mark.parametrize(
    "text",
    [
        "Logged in with password: secret123, then api_key=abc123 and token ghp_x",
        "postgres://svc:Tr0ub4dor@db/orders; secret: s3",
        f"keys {AWS_KEY} {GITHUB_TOKEN}",
    ],
)
def test_scrubbing_is_idempotent(text):
    scrubber = CredentialScrubber()
    once, changed = scrubber.scrub_text(text)
    assert changed is True
    assert scrubber.scrub_text(once) == (once, False)
    assert scrubber.contains_credentials(once) is False


def test_scrub_experience_redacts_context_and_outcome():
    original = experience(
        context=f"Used key {AWS_KEY} to connect",
        outcome="Logged in with password: secret123",
        metadata={"test": "value"},
        tags=["existing_tag"],
    )
    scrubbed, changed = CredentialScrubber().scrub_experience(original)
    assert changed is True
    assert scrubbed.context == "Used key [REDACTED] to connect"
    assert scrubbed.outcome == "Logged in with password: [REDACTED]"
    assert scrubbed.tags == ["existing_tag", "credential_scrubbed"]
    assert scrubbed.experience_id == original.experience_id
    assert scrubbed.experience_type is original.experience_type
    assert scrubbed.confidence == original.confidence
    assert scrubbed.timestamp == original.timestamp
    assert scrubbed.metadata == {"test": "value"}
    assert scrubbed.metadata is not original.metadata
    assert original.context == f"Used key {AWS_KEY} to connect"
    assert original.tags == ["existing_tag"]


def test_scrub_experience_tags_once():
    original = experience(context=f"API key: {OPENAI_KEY}", tags=["credential_scrubbed"])
    scrubbed, changed = CredentialScrubber().scrub_experience(original)
    assert changed is True
    assert scrubbed.tags == ["credential_scrubbed"]


def test_clean_experience_is_returned_unchanged():
    original = experience(tags=["a"])
    scrubbed, changed = CredentialScrubber().scrub_experience(original)
    assert changed is False
    assert scrubbed is original
    assert scrubbed.tags == ["a"]


def test_scrubbing_a_full_context_still_fits_the_limit():
    context = "x" * 488 + " password=ab"
    assert len(context) == 500
    scrubbed, changed = CredentialScrubber().scrub_experience(experience(context=context))
    assert changed is True
    assert len(scrubbed.context) == 500
    assert "ab" not in scrubbed.context[488:]


# ---------------------------------------------------------------------------
# QueryValidator
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("sql", "cost"),
    [
        ("SELECT * FROM experiences LIMIT 10", 11),
        ("select * from experiences limit 10", 11),
        ("SELECT * FROM experiences", 31),
        ("SELECT id FROM experiences LIMIT 5", 1),
        ("SELECT id FROM experiences", 21),
        ("SELECT id FROM e ORDER BY timestamp DESC LIMIT 10", 3),
        ("SELECT * FROM e JOIN a ON e.id = a.id JOIN b ON e.id = b.id LIMIT 10", 21),
        ("SELECT * FROM e WHERE id IN (SELECT id FROM other) LIMIT 10", 14),
        ("SELECT * FROM e JOIN a ON 1 WHERE x IN (SELECT y FROM z) ORDER BY t", 41),
    ],
)
def test_estimated_costs_use_the_reference_weights(sql, cost):
    assert QueryValidator().estimate_cost(sql) == cost


def test_limit_keeps_a_scan_below_twenty():
    validator = QueryValidator()
    assert validator.estimate_cost("SELECT * FROM experiences LIMIT 10") < 20
    assert validator.estimate_cost("SELECT * FROM experiences") >= 20


def test_query_at_the_limit_passes():
    validator = QueryValidator()
    sql = "SELECT * FROM experiences LIMIT 10"
    validator.validate_query(sql, max_cost=validator.estimate_cost(sql))
    validator.validate_query(sql, max_cost=50)


def test_query_over_the_limit_is_refused():
    with pytest.raises(QueryCostExceededError, match=r"Query cost .* exceeds limit") as caught:
        QueryValidator().validate_query("SELECT * FROM experiences", max_cost=5)
    assert "(5)" in str(caught.value)
    assert str(caught.value).startswith("Query cost (31) exceeds limit (5). ")
    assert isinstance(caught.value, MemoryError)
    with pytest.raises(QueryCostExceededError, match=r"\(10\)"):
        QueryValidator().validate_query("SELECT * FROM experiences LIMIT 1", max_cost=10)


@pytest.mark.parametrize(
    ("sql", "safe"),
    [
        ("SELECT * FROM experiences", True),
        ("select * from experiences", True),
        ("  \n SELECT id FROM t", True),
        ("SELECT updated_at, created_at, insertions FROM t LIMIT 1", True),
        ("DELETE FROM experiences", False),
        ("delete from experiences", False),
        ("UPDATE experiences SET confidence = 1.0", False),
        ("INSERT INTO experiences VALUES (1)", False),
        ("DROP TABLE experiences", False),
        ("CREATE TABLE new_table (id INT)", False),
        ("SELECT 1; DROP TABLE experiences", False),
        ("SELECT 1; ATTACH DATABASE 'x' AS y", False),
        ("SELECTION FROM t", False),
        ("WITH x AS (SELECT 1) SELECT * FROM x", False),
        ("", False),
    ],
)
def test_only_reads_are_safe(sql, safe):
    assert QueryValidator().is_safe_query(sql) is safe


# ---------------------------------------------------------------------------
# SecureMemoryBackend
# ---------------------------------------------------------------------------


class FakeStore:
    """The two calls SecureMemoryBackend makes, over a list."""

    def __init__(self, experiences: list[Experience] | None = None) -> None:
        self.experiences = list(experiences or [])
        self.searches: list[dict[str, object]] = []

    def add(self, exp: Experience) -> str:
        self.experiences.append(exp)
        return exp.experience_id

    def search(
        self,
        query: str,
        experience_type: ExperienceType | None = None,
        min_confidence: float = 0.0,
        limit: int = 10,
    ) -> list[Experience]:
        self.searches.append(
            {"query": query, "type": experience_type, "min": min_confidence, "limit": limit}
        )
        hits = [
            e
            for e in self.experiences
            if query in e.context
            and (experience_type is None or e.experience_type is experience_type)
            and e.confidence >= min_confidence
        ]
        return hits[:limit]


def test_backend_stores_permitted_experiences_scrubbed():
    store = FakeStore()
    backend = SecureMemoryBackend(store, caps(allowed_experience_types=[ExperienceType.SUCCESS]))
    original = experience(context=f"Used API key: {OPENAI_KEY}", outcome="Successfully connected")
    assert backend.add_experience(original) == original.experience_id
    [stored] = store.experiences
    assert "sk-1234567890" not in stored.context
    assert "[REDACTED]" in stored.context
    assert "credential_scrubbed" in stored.tags


def test_backend_stores_clean_experiences_as_they_are():
    store = FakeStore()
    backend = SecureMemoryBackend(store, caps())
    original = experience()
    backend.add_experience(original)
    assert store.experiences == [original]
    assert store.experiences[0].tags == []


def test_backend_refuses_forbidden_types():
    store = FakeStore()
    backend = SecureMemoryBackend(store, caps(allowed_experience_types=[ExperienceType.SUCCESS]))
    with pytest.raises(SecurityViolationError, match="not allowed to store") as caught:
        backend.add_experience(experience(ExperienceType.PATTERN))
    assert str(caught.value) == "Agent not allowed to store pattern experiences"
    assert store.experiences == []


def test_backend_search_passes_the_filters_through():
    store = FakeStore([experience(context=f"context {i}") for i in range(3)])
    backend = SecureMemoryBackend(store, caps())
    results = backend.search("context", ExperienceType.SUCCESS, min_confidence=0.5, limit=2)
    assert len(results) == 2
    assert all(e.experience_type is ExperienceType.SUCCESS for e in results)
    assert store.searches == [
        {"query": "context", "type": ExperienceType.SUCCESS, "min": 0.5, "limit": 2}
    ]


def test_backend_refuses_to_search_forbidden_types():
    store = FakeStore()
    backend = SecureMemoryBackend(store, caps())
    with pytest.raises(SecurityViolationError, match="not allowed to retrieve") as caught:
        backend.search("test", experience_type=ExperienceType.PATTERN)
    assert str(caught.value) == "Agent not allowed to retrieve pattern experiences"
    assert store.searches == []


def test_unfiltered_search_leaves_out_forbidden_types():
    kinds = [ExperienceType.SUCCESS, ExperienceType.PATTERN, ExperienceType.INSIGHT]
    store = FakeStore([experience(kind, context=f"ctx {kind.value}") for kind in kinds])
    restricted = SecureMemoryBackend(store, caps())
    assert [e.experience_type for e in restricted.search("ctx")] == [ExperienceType.SUCCESS]
    unrestricted = SecureMemoryBackend(store, caps(allowed_experience_types=[]))
    assert [e.experience_type for e in unrestricted.search("ctx")] == kinds


def test_backend_validates_custom_queries():
    backend = SecureMemoryBackend(FakeStore(), caps(max_query_cost=20))
    backend.validate_custom_query("SELECT * FROM experiences LIMIT 10")
    with pytest.raises(SecurityViolationError, match=r"^Only SELECT queries"):
        backend.validate_custom_query("DELETE FROM experiences")
    with pytest.raises(QueryCostExceededError, match=r"exceeds limit \(20\)"):
        backend.validate_custom_query("SELECT * FROM experiences")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Use the password reset page", [("password", "low")]),
        ("password: hunter2x", [("password", "high")]),
        ('{"api_key": "zz1234abcd"}', [("api_key", "high")]),
        ("the token expired yesterday", [("token", "low")]),
        ("AWS_ACCESS_KEY_ID=AKIAABCDEFGHIJKLMNOP", [("aws_key", "high")]),
        ("secret sauce", [("secret", "low")]),
        ("pwd=abc", [("password", "high")]),
    ],
)
def test_findings_carry_a_confidence(text, expected):
    assert [(f.kind, f.confidence) for f in find_secrets(text)] == expected


def test_scrub_without_low_keeps_prose_and_takes_keys():
    scrubber = CredentialScrubber()
    text = "reset the password page; key AKIAABCDEFGHIJKLMNOP"
    scrubbed, changed = scrubber.scrub_text(text, include_low=False)
    assert changed and scrubbed == "reset the password page; key [REDACTED]"
    assert scrubber.scrub_text(text)[0] == "reset the password [REDACTED] key [REDACTED]"
