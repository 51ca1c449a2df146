"""CognitiveMemory's semantic facts: storage, SIMILAR_TO / DERIVES_FROM edges, search."""

from __future__ import annotations

import pytest

from memexplorer.memory.cognitive_memory import (
    GRAPH_FETCH_MULTIPLIER,
    MAX_SEARCH_KEYWORDS,
    CognitiveMemory,
)
from memexplorer.memory.cognitive_search import query_keywords, tokenize
from memexplorer.memory.memory_types import SemanticFact
from memexplorer.storage.exceptions import InvalidInputError


@pytest.fixture
def memory(tmp_path):
    with CognitiveMemory("tester", tmp_path / "db") as mem:
        yield mem


def _edges(memory, rel):
    return memory.graph.rows(f"MATCH (a)-[r:{rel}]->(b) RETURN a.node_id, b.node_id")


def test_fact_round_trip(memory):
    meta = {"temporal_index": 3, "source": "incident-42", "nested": {"a": [1, 2]}}
    fid = memory.store_fact(
        "checkout-api latency", "p99 dropped to 400ms", confidence=0.85, source_id="ticket-7",
        tags=["checkout-api", "latency"], temporal_metadata=meta,
    )  # fmt: skip
    plain = memory.store_fact("defaults", "a fact with default fields")
    assert fid.startswith("sem_")
    facts = {f.node_id: f for f in memory.get_all_facts()}
    fact = facts[fid]
    assert (fact.concept, fact.content) == ("checkout-api latency", "p99 dropped to 400ms")
    assert fact.confidence == 0.85 and fact.source_id == "ticket-7"
    assert fact.tags == ["checkout-api", "latency"] and fact.metadata == meta
    assert (facts[plain].tags, facts[plain].metadata, facts[plain].confidence) == ([], {}, 1.0)
    assert [f.node_id for f in memory.get_all_facts()] == [plain, fid]  # most confident first
    assert len(memory.get_all_facts(limit=1)) == 1


@pytest.mark.parametrize("confidence", [-0.1, 1.5])
def test_confidence_outside_unit_interval_is_refused(memory, confidence):
    with pytest.raises(InvalidInputError, match="confidence"):
        memory.store_fact("c", "x", confidence=confidence)


def test_similar_facts_get_an_edge_with_its_score(memory):
    first = memory.store_fact("Python language", "Python is an interpreted programming language")
    second = memory.store_fact(
        "Python language", "Python is an interpreted programming language widely used"
    )
    memory.store_fact("Weather", "The forecast predicts sunshine tomorrow")
    rows = memory.graph.rows(
        "MATCH (a)-[r:SIMILAR_TO]->(b) RETURN a.node_id, b.node_id, r.similarity_score"
    )
    assert len(rows) == 1
    assert rows[0][:2] == [second, first]
    expected = len(tokenize("Python language Python is an interpreted programming language"))
    assert rows[0][2] == pytest.approx(expected / (expected + 2))  # + "widely", "used"


def test_similarity_edges_stay_within_the_agent(tmp_path):
    path = tmp_path / "shared"
    with CognitiveMemory("a", path) as a, CognitiveMemory("b", path) as b:
        a.store_fact("Python", "Python is an interpreted language")
        b.store_fact("Python", "Python is an interpreted language")
        assert _edges(a, "SIMILAR_TO") == []


def test_derives_from_edge(memory):
    episode = memory.store_episode("Discussed machine learning at the conference", "notes")
    fid = memory.store_fact("ML", "Models learn from examples", source_episode_id=episode)
    assert _edges(memory, "DERIVES_FROM") == [[fid, episode]]
    derived_at = memory.graph.scalar("MATCH ()-[r:DERIVES_FROM]->() RETURN r.derived_at")
    assert isinstance(derived_at, int) and derived_at > 0
    orphan = memory.store_fact("ML", "unknown episode", source_episode_id="epi_does_not_exist")
    assert orphan.startswith("sem_")
    assert _edges(memory, "DERIVES_FROM") == [[fid, episode]]


def test_derives_from_never_points_at_another_agents_episode(tmp_path):
    path = tmp_path / "shared"
    with CognitiveMemory("a", path) as a, CognitiveMemory("b", path) as b:
        episode = a.store_episode("a's private episode", "log")
        b.store_fact("c", "b's fact", source_episode_id=episode)
        assert _edges(a, "DERIVES_FROM") == []


# -- search -----------------------------------------------------------------------------
def test_search_returns_only_matching_facts(memory):
    match = memory.store_fact("Database", "Relational databases store structured data")
    memory.store_fact("Weather", "The weather forecast predicts sunshine")
    results = memory.search_facts("database structured")
    assert [f.node_id for f in results] == [match]
    assert all(isinstance(f, SemanticFact) and f.node_id.startswith("sem_") for f in results)
    assert memory.search_facts("submarine") == []


def test_similar_neighbour_without_a_query_word_is_not_returned(memory):
    seed = memory.store_fact("kafka brokers", "kafka cluster runs three brokers in zones")
    neighbour = memory.store_fact("kafka brokers", "kafka cluster runs three brokers per region")
    assert _edges(memory, "SIMILAR_TO") == [[neighbour, seed]]
    assert [f.node_id for f in memory.search_facts("zones")] == [seed]


def test_best_concept_match_first(memory):
    memory.store_fact("Rust", "Rust is faster than Python for systems work", confidence=1.0)
    memory.store_fact("Java", "Java and Python both run on servers", confidence=0.9)
    python = memory.store_fact("Python", "An interpreted language", confidence=0.6)
    partial = memory.store_fact("Python packaging", "pip and wheels", confidence=0.7)
    results = memory.search_facts("python")
    assert results[0].node_id == python  # the concept equals the query
    assert results[1].node_id == partial  # the concept holds the query
    assert len(results) == 4


def test_more_concept_keywords_rank_higher(memory):
    one = memory.store_fact("cache", "eviction of cache entries under memory pressure")
    both = memory.store_fact("cache eviction", "what happens under pressure", confidence=0.5)
    assert [f.node_id for f in memory.search_facts("cache eviction pressure")] == [both, one]


def test_search_limit_min_confidence_and_no_duplicates(memory):
    for i in range(12):
        memory.store_fact(
            "Programming", f"Programming languages are tools for developers number {i}",
            confidence=0.3 + i * 0.05,
        )  # fmt: skip
    low = memory.store_fact("Python language", "Python programming for scripting", confidence=0.1)
    results = memory.search_facts("programming languages developers", limit=3)
    assert len(results) == 3
    everything = memory.search_facts("programming languages developers", limit=50)
    ids = [f.node_id for f in everything]
    assert len(ids) == len(set(ids)) == 13
    confident = memory.search_facts("programming", limit=50, min_confidence=0.5)
    assert confident and all(f.confidence >= 0.5 for f in confident)
    assert low not in {f.node_id for f in confident}
    assert memory.search_facts("programming", limit=0) == []


def test_expansion_finds_a_similar_match_beyond_the_scan_window(memory):
    # The scan fetches limit * GRAPH_FETCH_MULTIPLIER candidates, best concept
    # and keyword matches first, then by confidence. ``hidden`` matches as well
    # as the fillers but is less confident, so the window leaves it out; its
    # SIMILAR_TO link to the best seed brings it back and ranks it above them.
    limit = 2
    seed = memory.store_fact("alpha zeta", "alpha zeta gamma delta")
    hidden = memory.store_fact("zeta", "gamma delta epsilon", confidence=0.5)
    assert [hidden, seed] in _edges(memory, "SIMILAR_TO")
    for i in range(limit * GRAPH_FETCH_MULTIPLIER):
        memory.store_fact("zeta", f"filler{i} word{i}x", confidence=0.9)
    assert [f.node_id for f in memory.search_facts("alpha zeta", limit=limit)] == [seed, hidden]


def test_linked_facts_rank_above_equal_unlinked_ones(memory):
    seed = memory.store_fact("kafka", "kafka brokers replicate partitions")
    linked = memory.store_fact("brokers", "kafka brokers replicate partitions quickly", 0.8)
    alone = memory.store_fact("brokers", "brokers of kafka", 0.8)
    results = [f.node_id for f in memory.search_facts("kafka")]
    assert results == [seed, linked, alone]


def test_empty_query_returns_all_facts(memory):
    ids = {memory.store_fact("A", "alpha content"), memory.store_fact("B", "beta content")}
    assert {f.node_id for f in memory.search_facts("")} == ids
    assert {f.node_id for f in memory.search_facts("   ")} == ids
    assert len(memory.search_facts("", limit=1)) == 1


def test_very_long_query(memory):
    fid = memory.store_fact("WordFact", "word1 and some more text")
    long_query = " ".join(f"word{i}" for i in range(MAX_SEARCH_KEYWORDS + 500))
    assert [f.node_id for f in memory.search_facts(long_query)] == [fid]
    assert isinstance(memory.search_facts("x" * 100_000), list)
    assert isinstance(memory.search_facts("' OR 1=1 -- $agent } ) MATCH (n) DELETE n"), list)
    assert memory.get_statistics()["semantic"] == 1


def test_query_keywords():
    assert query_keywords("The Python, and the Rust!") == ["python", "rust"]
    assert query_keywords("Go CI") == ["go", "ci"]  # short words kept when nothing else
    assert len(query_keywords(" ".join(f"w{i}xx" for i in range(50)))) == MAX_SEARCH_KEYWORDS
    assert query_keywords("") == [] and query_keywords("  ") == []
