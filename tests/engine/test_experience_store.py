"""ExperienceStore on both backends: search, statistics, retention, quota, validation."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

import pytest

from memexplorer.memory.connector import MemoryConnector
from memexplorer.memory.experience import Experience, ExperienceType
from memexplorer.memory.security import AgentCapabilities, ScopeLevel, SecureMemoryBackend
from memexplorer.memory.store import ExperienceStore
from memexplorer.storage.exceptions import (
    InvalidExperienceError,
    MemoryError,
    MemoryQuotaExceededError,
)
from tests.store_helpers import checksums

NOW = datetime.now()


def exp(context: str, outcome: str = "Result", confidence: float = 0.8, **kw) -> Experience:
    kind = kw.pop("experience_type", ExperienceType.SUCCESS)
    return Experience(kind, context, outcome, confidence, **kw)


@pytest.fixture(params=("sqlite", "kuzu"))
def backend(request: pytest.FixtureRequest) -> str:
    return request.param


@pytest.fixture
def store(tmp_path: Path, backend: str):
    with ExperienceStore("test-agent", storage_path=tmp_path, backend=backend) as opened:
        yield opened


def test_attributes(tmp_path: Path) -> None:
    with ExperienceStore("a", storage_path=tmp_path) as store:
        assert store.agent_name == "a"
        assert store.auto_compress is True
        assert store.max_age_days is None and store.max_experiences is None
        assert store.max_memory_mb == 100
        assert store.storage_path == tmp_path
        assert store.backend == "sqlite"
        assert isinstance(store.connector, MemoryConnector)
    with ExperienceStore(
        "a", auto_compress=False, max_age_days=30, max_experiences=10, storage_path=tmp_path / "k",
        backend="kuzu",
    ) as other:  # fmt: skip
        assert other.auto_compress is False
        assert (other.max_age_days, other.max_experiences) == (30, 10)
        assert other.connector.backend_type == "kuzu"


@pytest.mark.parametrize("field", ["max_age_days", "max_experiences"])
def test_retention_limits_must_be_positive(tmp_path: Path, field: str) -> None:
    with pytest.raises(ValueError, match=field):
        ExperienceStore("a", storage_path=tmp_path / "x", **{field: 0})
    assert not (tmp_path / "x").exists()


def test_add_returns_unique_ids(store: ExperienceStore) -> None:
    first = store.add(exp("Same content", timestamp=NOW))
    second = store.add(exp("Same content", timestamp=NOW + timedelta(seconds=1)))
    assert first.startswith("exp_") and second.startswith("exp_") and first != second
    assert len(store.search("same content")) == 2


# -- search ----------------------------------------------------------------------------------


def test_search_stems_words(store: ExperienceStore) -> None:
    store.add(exp("Missing examples in tutorials", "Added the examples"))
    store.add(exp("Documentation quality check", "Fine"))
    found = store.search("tutorial")
    assert len(found) == 1 and "tutorials" in found[0].context
    assert [e.context for e in store.search("TUTORIALS")] == ["Missing examples in tutorials"]
    assert [e.context for e in store.search("added")] == ["Missing examples in tutorials"]


def test_search_needs_every_word(store: ExperienceStore) -> None:
    store.add(exp("Python documentation analysis", "Perfect match", 0.95))
    store.add(exp("Python code review", "Partial match", 0.85))
    store.add(exp("JavaScript documentation", "Partial match", 0.9))
    found = store.search("Python documentation")
    assert [e.context for e in found] == ["Python documentation analysis"]
    assert len(store.search("partial match")) == 2


def test_search_newest_first_and_blank_query(store: ExperienceStore) -> None:
    for i in range(5):
        store.add(exp(f"Test run {i}", timestamp=NOW - timedelta(hours=5 - i)))
    assert [e.context for e in store.search("test")] == [f"Test run {i}" for i in range(4, -1, -1)]
    assert len(store.search("")) == 5
    assert len(store.search("Test", limit=3)) == 3
    assert len(store.search("", limit=2)) == 2


def test_search_filters(store: ExperienceStore) -> None:
    store.add(exp("cache miss storm", confidence=0.4, experience_type=ExperienceType.FAILURE))
    store.add(exp("cache warmed early", confidence=0.9, experience_type=ExperienceType.SUCCESS))
    assert [e.context for e in store.search("cache", ExperienceType.FAILURE)] == [
        "cache miss storm"
    ]
    assert [e.context for e in store.search("cache", min_confidence=0.5)] == ["cache warmed early"]


@pytest.mark.parametrize("query", ['"', "-", "AND OR NOT", "foo*", "c++ (x", "a:b", "NEAR(x y)"])
def test_search_treats_punctuation_as_text(store: ExperienceStore, query: str) -> None:
    store.add(exp("plain words only"))
    assert store.search(query) == []


def test_search_hyphenated_and_symbols(store: ExperienceStore) -> None:
    store.add(exp("redis-cache eviction", "tuned maxmemory-policy"))
    assert len(store.search("redis-cache")) == 1
    assert len(store.search("maxmemory-policy eviction")) == 1


# -- statistics ------------------------------------------------------------------------------


def test_statistics(store: ExperienceStore) -> None:
    store.add(exp("one", experience_type=ExperienceType.SUCCESS))
    store.add(exp("two", experience_type=ExperienceType.SUCCESS))
    store.add(exp("three", experience_type=ExperienceType.PATTERN))
    stats = store.get_statistics()
    assert set(stats) == {
        "total_experiences", "by_type", "storage_size_kb", "compressed_experiences"
    }  # fmt: skip
    assert "compression_ratio" not in stats
    assert stats["total_experiences"] == 3
    assert stats["by_type"] == {ExperienceType.SUCCESS: 2, ExperienceType.PATTERN: 1}
    assert stats["storage_size_kb"] > 0
    assert stats["compressed_experiences"] == 0


# -- retention -------------------------------------------------------------------------------


def test_old_experiences_are_compressed(store: ExperienceStore) -> None:
    store.add(exp("Old experience " * 30, "Old result " * 30, timestamp=NOW - timedelta(days=31)))
    store.add(exp("New experience"))
    assert store.get_statistics()["compressed_experiences"] == 1
    assert len(store.search("")) == 2  # compressed, not removed


def test_no_compression_when_disabled(tmp_path: Path, backend: str) -> None:
    with ExperienceStore("a", auto_compress=False, storage_path=tmp_path, backend=backend) as store:
        store.add(exp("Old", timestamp=NOW - timedelta(days=31)))
        assert store.get_statistics()["compressed_experiences"] == 0


def test_max_age_days(tmp_path: Path, backend: str) -> None:
    with ExperienceStore("a", max_age_days=30, storage_path=tmp_path, backend=backend) as store:
        store.add(exp("Too old", timestamp=NOW - timedelta(days=31)))
        store.add(exp("Recent"))
        assert [e.context for e in store.search("")] == ["Recent"]
        assert store.search("old") == []


def test_max_experiences_keeps_newest(tmp_path: Path, backend: str) -> None:
    with ExperienceStore("a", max_experiences=10, storage_path=tmp_path, backend=backend) as store:
        for i in range(15):
            store.add(exp(f"Experience {i}", timestamp=NOW - timedelta(hours=15 - i)))
        kept = {e.context for e in store.search("", limit=100)}
        assert kept == {f"Experience {i}" for i in range(5, 15)}
        assert store.get_statistics()["total_experiences"] == 10
        # the FTS index forgot the deleted rows
        assert (
            store.search("experience", limit=100)
            and len(store.search("experience", limit=100)) == 10
        )


def test_max_experiences_keeps_confident_patterns(tmp_path: Path, backend: str) -> None:
    with ExperienceStore("a", max_experiences=5, storage_path=tmp_path, backend=backend) as store:
        old = NOW - timedelta(days=60)
        pattern = ExperienceType.PATTERN
        store.add(
            exp("Important pattern", "Critical", 0.98, experience_type=pattern, timestamp=old)
        )
        store.add(exp("Weak pattern", "Maybe", 0.5, experience_type=pattern, timestamp=old))
        for i in range(10):
            store.add(exp(f"Regular success {i}", confidence=0.7))
        patterns = store.search("Important pattern")
        assert len(patterns) == 1 and patterns[0].confidence == 0.98
        assert store.search("weak") == []
        assert store.get_statistics()["total_experiences"] == 6


def test_retention_is_per_agent(tmp_path: Path, backend: str) -> None:
    with ExperienceStore("keeper", storage_path=tmp_path, backend=backend) as keeper:
        keeper.add(exp("Ancient but mine", timestamp=NOW - timedelta(days=400)))
    with ExperienceStore(
        "pruner", max_age_days=7, max_experiences=1, storage_path=tmp_path, backend=backend
    ) as pruner:
        for i in range(3):
            pruner.add(exp(f"pruned {i}", timestamp=NOW - timedelta(hours=i)))
        assert pruner.get_statistics()["total_experiences"] == 1
    with ExperienceStore("keeper", storage_path=tmp_path, backend=backend) as keeper:
        assert [e.context for e in keeper.search("")] == ["Ancient but mine"]


def test_cleanup_reclaims_space(tmp_path: Path) -> None:
    with ExperienceStore("a", max_age_days=7, storage_path=tmp_path) as store:
        store.connector.store_experiences(
            [exp(f"Old {i} " + "x" * 400, timestamp=NOW - timedelta(days=30)) for i in range(300)]
        )
        big = store.get_statistics()["storage_size_kb"]
        store.add(exp("Recent"))
        small = store.get_statistics()["storage_size_kb"]
        assert store.get_statistics()["total_experiences"] == 1
        assert small < big / 2


# -- quota -----------------------------------------------------------------------------------


def test_quota(tmp_path: Path, backend: str) -> None:
    with ExperienceStore("a", max_memory_mb=1, storage_path=tmp_path, backend=backend) as store:
        with pytest.raises(MemoryQuotaExceededError, match="quota exceeded"):
            for i in range(5000):
                store.add(exp(f"X{i} " + "X" * 400, "Y" * 400))
        total = store.get_statistics()["total_experiences"]
        assert 0 < total < 5000
        assert isinstance(MemoryQuotaExceededError("x"), MemoryError)


# -- validation ------------------------------------------------------------------------------


def _broken(field: str, value: object) -> Experience:
    experience = exp("valid context", "valid outcome")
    setattr(experience, field, value)
    return experience


@pytest.mark.parametrize(
    ("field", "value", "error"),
    [
        ("context", "", ValueError),
        ("context", "   ", ValueError),
        ("context", "c" * 501, ValueError),
        ("outcome", "", ValueError),
        ("outcome", "o" * 1001, ValueError),
        ("confidence", -0.1, ValueError),
        ("confidence", 1.5, ValueError),
        ("confidence", float("nan"), ValueError),
        ("confidence", "high", TypeError),
        ("experience_type", "success", TypeError),
        ("timestamp", "2026-01-01", TypeError),
        ("experience_id", "", ValueError),
        ("metadata", {"when": object()}, ValueError),
        ("tags", "not-a-list", ValueError),
    ],
)
def test_invalid_experiences_leave_files_unchanged(
    tmp_path: Path, backend: str, field: str, value: object, error: type
) -> None:
    with ExperienceStore("a", storage_path=tmp_path, backend=backend) as store:
        store.add(exp("already there"))
    before = checksums(tmp_path)
    with ExperienceStore("a", storage_path=tmp_path, backend=backend) as store:
        with pytest.raises(error) as info:
            store.add(_broken(field, value))
        if error is ValueError:
            assert isinstance(info.value, InvalidExperienceError)
        with pytest.raises(error):
            store.connector.store_experience(_broken(field, value))
        assert store.connector.read_only
    assert checksums(tmp_path) == before


def test_not_an_experience(store: ExperienceStore) -> None:
    with pytest.raises(TypeError):
        store.add({"context": "dict"})  # type: ignore[arg-type]


def test_bad_filters(store: ExperienceStore) -> None:
    with pytest.raises(ValueError):
        store.search("x", limit=-1)
    with pytest.raises(ValueError):
        store.search("x", experience_type="success")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        store.search(42)  # type: ignore[arg-type]
    # A tagged or relevance-ordered search checks its limit as a plain one does.
    with pytest.raises(ValueError):
        store.search("x", tags=["deploy"], limit=-1)
    with pytest.raises(ValueError):
        store.search("x", order="relevance", limit=-1)


# -- with the security layer -----------------------------------------------------------------


def test_secure_backend_scrubs_into_the_store(store: ExperienceStore) -> None:
    capabilities = AgentCapabilities(ScopeLevel.SESSION_ONLY, [], 100, True, 10)
    secure = SecureMemoryBackend(store, capabilities)
    secure.add_experience(exp("deploy with password: hunter2", "ok"))
    found = secure.search("deploy")
    assert len(found) == 1
    assert "hunter2" not in found[0].context
    assert "credential_scrubbed" in found[0].tags


def test_writing_into_a_reference_store(reference_stores: Path, backend: str) -> None:
    """The reference's own FTS triggers (sqlite) are kept; after retention deletes,
    search still agrees with a plain scan of what is left."""
    folder = reference_stores / "home/.amplihack/memory/ops-agent"
    with ExperienceStore(
        "ops-agent", max_experiences=60, storage_path=folder, backend=backend
    ) as store:
        store.add(exp("zebra migration of the ledger", "went fine", 0.9))
        assert not store.connector.read_only
        left = store.search("", limit=1000)
        assert 60 <= len(left) < 123
        assert [e.context for e in store.search("zebra")] == ["zebra migration of the ledger"]
        for word in ("redis", "cache", "token", "deploy"):
            scanned = {e.experience_id for e in left
                       if word in e.context.lower() or word in e.outcome.lower()}  # fmt: skip
            assert {e.experience_id for e in store.search(word, limit=1000)} == scanned


def test_search_without_limit(store: ExperienceStore) -> None:
    for i in range(12):
        store.add(exp(f"alpha {i}"))
    assert len(store.search("alpha", limit=None)) == 12  # type: ignore[arg-type]
    assert len(store.search("", limit=None)) == 12  # type: ignore[arg-type]
    assert store.search("alpha", limit=0) == []
