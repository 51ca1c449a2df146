"""Relevance scoring, word similarity, retrieval and the search engine (API.md §4)."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memexplorer.memory.experience import Experience, ExperienceType
from memexplorer.memory.semantic_search import (
    SemanticSearchEngine,
    TFIDFSimilarity,
    calculate_relevance,
    recency_factor,
    retrieve_relevant_experiences,
)


def exp(
    context: str,
    kind: ExperienceType = ExperienceType.SUCCESS,
    confidence: float = 0.8,
    days_ago: float = 0.0,
    outcome: str = "Result",
) -> Experience:
    when = datetime.now() - timedelta(days=days_ago)
    return Experience(kind, context, outcome, confidence, timestamp=when)


# ---------------------------------------------------------------------------
# TFIDFSimilarity
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("first", "second", "expected"),
    [
        ("This is a test document", "This is a test document", 1.0),
        ("Python Documentation", "python documentation", 1.0),
        ("check, quality.", "Check quality", 1.0),
        ("a b c", "b c d", 0.5),
        ("documentation quality analysis tutorial", "database query optimization", 0.0),
        ("", "test text", 0.0),
        ("test text", "", 0.0),
        ("   ", "   ", 0.0),
        ("!!", "!!", 1.0),
    ],
)
def test_word_similarity(first, second, expected):
    assert TFIDFSimilarity().calculate(first, second) == pytest.approx(expected)


@given(st.text().filter(str.strip))
def test_identical_texts_score_one(text):
    assert TFIDFSimilarity().calculate(text, text) == 1.0


@given(st.text(max_size=60), st.text(max_size=60))
def test_similarity_is_symmetric_and_bounded(first, second):
    score = TFIDFSimilarity().calculate(first, second)
    assert 0.0 <= score <= 1.0
    assert score == TFIDFSimilarity().calculate(second, first)


# ---------------------------------------------------------------------------
# Relevance
# ---------------------------------------------------------------------------


def test_relevance_is_similarity_times_confidence_for_plain_types():
    score = calculate_relevance(exp("Code quality check"), "code quality")
    assert score == pytest.approx(2 / 3 * 0.9, abs=1e-4)
    failure = calculate_relevance(exp("Code quality check", ExperienceType.FAILURE), "code quality")
    assert failure == pytest.approx(score, abs=1e-4)


def test_more_similar_contexts_score_higher():
    experience = exp("Python documentation quality check")
    close = calculate_relevance(experience, "Python documentation analysis")
    far = calculate_relevance(experience, "JavaScript code review")
    assert close > far == 0.0


@pytest.mark.parametrize(
    ("kind", "weight"), [(ExperienceType.PATTERN, 1.5), (ExperienceType.INSIGHT, 1.3)]
)
def test_type_weights(kind, weight):
    query = "SQL injection detection"
    plain = calculate_relevance(exp("SQL injection vulnerability"), query)
    weighted = calculate_relevance(exp("SQL injection vulnerability", kind), query)
    assert weighted / plain == pytest.approx(weight, rel=1e-3)


def test_confidence_boost():
    query = "test coverage issues"
    high = calculate_relevance(exp("Missing test coverage", confidence=0.95), query)
    low = calculate_relevance(exp("Missing test coverage", confidence=0.6), query)
    assert high / low == pytest.approx((0.5 + 0.5 * 0.95) / (0.5 + 0.5 * 0.6), rel=1e-3)
    zero = calculate_relevance(exp("Missing test coverage", confidence=0.0), query)
    assert zero == pytest.approx(0.5 * 0.5, abs=1e-4)


def test_recency_strictly_decreases_over_ninety_days():
    scores = [calculate_relevance(exp("Code quality check", days_ago=d), "code quality")
              for d in (0, 30, 60, 90, 180)]  # fmt: skip
    assert scores[0] > scores[1] > scores[2] > scores[3]
    assert [s / scores[0] for s in scores] == pytest.approx([1.0, 0.9, 0.8, 0.7, 0.7], rel=1e-3)


def test_recency_factor_values():
    now = datetime(2026, 6, 1, 12, 0)
    assert recency_factor(now, now) == 1.0
    assert recency_factor(now - timedelta(days=45), now) == pytest.approx(0.85)
    assert recency_factor(now - timedelta(days=90), now) == pytest.approx(0.7)
    assert recency_factor(now - timedelta(days=900), now) == 0.7
    assert recency_factor(now + timedelta(days=30), now) == 1.0


def test_timezone_aware_timestamps_are_scored():
    aware = Experience(
        ExperienceType.SUCCESS, "Code quality check", "Result", 0.8,
        timestamp=datetime.now(UTC) - timedelta(days=30),
    )  # fmt: skip
    assert calculate_relevance(aware, "code quality") == pytest.approx(2 / 3 * 0.9 * 0.9, rel=1e-3)


def test_relevance_is_capped_at_one():
    perfect = exp("Exact matching query text", ExperienceType.PATTERN, confidence=1.0)
    assert calculate_relevance(perfect, "Exact matching query text") == 1.0


@given(
    context=st.text(min_size=1, max_size=40).filter(str.strip),
    query=st.text(max_size=40),
    kind=st.sampled_from(ExperienceType),
    confidence=st.floats(0.0, 1.0),
    days_ago=st.floats(-10.0, 400.0),
)
def test_relevance_stays_in_range(context, query, kind, confidence, days_ago):
    score = calculate_relevance(exp(context, kind, confidence, days_ago), query)
    assert 0.0 <= score <= 1.0


# ---------------------------------------------------------------------------
# retrieve_relevant_experiences
# ---------------------------------------------------------------------------


def test_retrieves_the_most_relevant_first():
    pool = [
        exp("Python documentation quality check", confidence=0.9),
        exp("Missing examples in Python tutorials", ExperienceType.PATTERN, confidence=0.95),
        exp("JavaScript code review completed"),
    ]
    relevant = retrieve_relevant_experiences(pool, "Python documentation analysis", top_k=2)
    assert relevant == [pool[0], pool[1]]


def test_results_are_sorted_by_relevance():
    pool = [
        exp("Partial match with query", confidence=0.7, days_ago=30),
        exp("Perfect match with query terms", ExperienceType.PATTERN, 0.95),
        exp("Another partial match", ExperienceType.FAILURE, 0.6, days_ago=60),
    ]
    results = retrieve_relevant_experiences(pool, "match with query", top_k=3)
    scores = [calculate_relevance(e, "match with query") for e in results]
    assert results[0] is pool[1]
    assert scores == sorted(scores, reverse=True)
    assert len(results) == 3


def test_min_similarity_filters_inclusively():
    pool = [exp("Highly relevant context matching query", confidence=0.9),
            exp("Completely unrelated different topic", confidence=0.9)]  # fmt: skip
    query = "relevant context query"
    [only] = retrieve_relevant_experiences(pool, query, top_k=10, min_similarity=0.5)
    assert only is pool[0]
    exact = calculate_relevance(pool[0], query)
    assert retrieve_relevant_experiences(pool, query, min_similarity=exact * 0.999) == [pool[0]]
    assert retrieve_relevant_experiences(pool, query, min_similarity=exact * 1.01) == []


def test_zero_scores_are_kept_at_the_default_threshold():
    pool = [exp("Topic A discussion")]
    assert retrieve_relevant_experiences(pool, "unrelated") == pool
    assert retrieve_relevant_experiences(pool, "unrelated topic B", min_similarity=0.7) == []


def test_top_k_is_respected():
    pool = [exp(f"Documentation quality check {i}") for i in range(20)]
    assert len(retrieve_relevant_experiences(pool, "Documentation quality", top_k=5)) == 5
    assert retrieve_relevant_experiences(pool, "Documentation quality", top_k=0) == []
    assert retrieve_relevant_experiences([], "anything") == []


def test_ties_keep_the_input_order_and_generators_work():
    when = datetime.now()
    pool = [Experience(ExperienceType.SUCCESS, f"same words here {i}", "o", 0.8, when)
            for i in range(4)]  # fmt: skip
    results = retrieve_relevant_experiences((e for e in pool), "same words here", top_k=4)
    assert results == pool


# ---------------------------------------------------------------------------
# SemanticSearchEngine
# ---------------------------------------------------------------------------


def test_engine_corpus_and_index():
    pool = [exp(f"Document {i}") for i in range(10)]
    engine = SemanticSearchEngine(pool)
    assert engine.corpus_size == 10
    assert engine.is_indexed() is True
    assert SemanticSearchEngine([]).corpus_size == 0


def test_engine_search_matches_the_function():
    pool = [exp(f"Document about topic {i % 7}", confidence=0.5 + i / 100) for i in range(40)]
    engine = SemanticSearchEngine(pool)
    for query in ("Document about topic 5", "topic 2", "nothing"):
        assert engine.search(query, top_k=5) == retrieve_relevant_experiences(pool, query, 5)


def test_engine_add_and_remove():
    engine = SemanticSearchEngine([exp("Initial document")])
    new = exp("New document", confidence=0.9)
    engine.add_experience(new)
    assert engine.corpus_size == 2
    assert engine.search("New document", top_k=1) == [new]
    engine.add_experience(new)
    assert engine.corpus_size == 2
    engine.remove_experience(new.experience_id)
    assert engine.corpus_size == 1
    assert new not in engine.search("New document")
    engine.remove_experience("exp_unknown")
    assert engine.corpus_size == 1


def test_engine_searches_a_thousand_experiences_fast():
    pool = [exp(f"Document about topic {i % 20}", outcome=f"Result {i}") for i in range(1000)]
    engine = SemanticSearchEngine(pool)
    timings = []
    for _ in range(3):
        start = time.perf_counter()
        results = engine.search("Document about topic 5", top_k=10)
        timings.append(time.perf_counter() - start)
    assert min(timings) < 0.05
    assert len(results) == 10
    assert all(r.context == "Document about topic 5" for r in results)
