"""similarity, entity extraction and contradiction detection, as API.md §4 states."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memexplorer.memory import (
    compute_similarity,
    compute_tag_similarity,
    compute_word_similarity,
    detect_contradiction,
    extract_entity_name,
    rerank_facts_by_query,
)


def test_word_similarity():
    assert compute_word_similarity("", "anything") == 0.0
    assert compute_word_similarity("the cat sat", "The cat sat!") == 1.0
    assert compute_word_similarity("red apples taste", "green apples taste") == pytest.approx(0.5)


def test_tag_similarity():
    assert compute_tag_similarity([], ["a"]) == 0.0
    assert compute_tag_similarity(["Ops", "db"], ["ops"]) == pytest.approx(0.5)


def test_composite_weights():
    node = {"content": "kafka brokers in three zones", "concept": "kafka layout", "tags": ["k"]}
    assert compute_similarity(node, dict(node)) == pytest.approx(1.0)
    other = {"content": "kafka brokers in three zones", "concept": "unrelated", "tags": []}
    assert compute_similarity(node, other) == pytest.approx(0.5)


@given(st.text(), st.text())
def test_word_similarity_is_symmetric_and_bounded(a, b):
    score = compute_word_similarity(a, b)
    assert score == compute_word_similarity(b, a)
    assert 0.0 <= score <= 1.0


def test_rerank():
    facts = [{"context": "weather", "outcome": "sunny"}, {"context": "copper price", "outcome": ""}]
    assert rerank_facts_by_query(facts, "copper price")[0] is facts[1]
    assert rerank_facts_by_query(facts, "") is facts
    assert rerank_facts_by_query([], "x") == []
    assert len(rerank_facts_by_query(facts, "copper", top_k=1)) == 1
    temporal = [
        {"context": "price", "outcome": "", "metadata": {}},
        {"context": "price", "outcome": "", "metadata": {"temporal_index": 2}},
    ]
    assert rerank_facts_by_query(temporal, "price change over time")[0] is temporal[1]


@pytest.mark.parametrize(
    ("content", "concept", "expected"),
    [
        ("Sarah Chen joined Contoso", "", "sarah chen"),
        ("He met Liam O'Brien today", "", "o'brien"),
        ("He met Liam O\u2019Brien today", "", "o\u2019brien"),
        ("Talks with Omar Al-Hassan went well", "", "omar al-hassan"),
        ("Medals for Klaebo", "", "klaebo"),
        ("Klaebo won", "", ""),
        ("Sarah Chen joined", "Ada Lovelace notes", "ada lovelace"),
        ("nothing here", "", ""),
    ],
)
def test_entity_extraction(content, concept, expected):
    assert extract_entity_name(content, concept) == expected


def test_contradiction():
    found = detect_contradiction("Klaebo has 9 golds", "Klaebo has 10 golds", "klaebo medals",
                                 "klaebo medals")  # fmt: skip
    assert found == {"contradiction": True, "conflicting_values": "9 vs 10"}
    assert detect_contradiction("3.5 GB", "4.5 GB", "disk size", "disk size")
    assert detect_contradiction("9", "10", "", "klaebo") == {}
    assert detect_contradiction("9", "10", "ab cd", "ab cd") == {}  # short words only
    assert detect_contradiction("9 and 10", "10 and 9", "medals", "medals") == {}
