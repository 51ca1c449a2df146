"""The two similarity thresholds of HierarchicalMemory (seed 003), on hand-built facts.

Storing links a new fact to a recent one by SIMILAR_TO only when their score
is above 0.3; retrieval follows a SIMILAR_TO hop only when the edge weighs at
least ``similarity_threshold``. The expected answers are worked out by hand
from the seed's formula, never taken from memexplorer's output.
"""

from __future__ import annotations

import pytest

from memexplorer.memory.hierarchical_memory import HierarchicalMemory


@pytest.fixture
def memory(tmp_path):
    with HierarchicalMemory("tester", tmp_path / "store") as mem:
        yield mem


def _similar_edges(memory) -> dict[tuple[str, str], float]:
    rows = memory.graph.rows(
        "MATCH (a:SemanticMemory)-[r:SIMILAR_TO]->(b:SemanticMemory) "
        "RETURN a.memory_id, b.memory_id, r.weight"
    )
    return {(a, b): weight for a, b, weight in rows}


def test_storing_links_only_facts_scoring_above_the_threshold(memory):
    # No concept and no tags, so score = 0.5 x Jaccard of the content words.
    first = memory.store_knowledge("alpha bravo charlie delta")
    # {alpha bravo charlie} of {alpha bravo charlie delta echo}: 0.5 x 3/5 = 0.3,
    # not above 0.3: no edge at exactly the threshold.
    at_threshold = memory.store_knowledge("alpha bravo charlie echo")
    # 4 of 5 words shared with each of the two: 0.5 x 4/5 = 0.4, an edge to each.
    above = memory.store_knowledge("alpha bravo charlie delta echo")
    # Nothing shared: 0.
    memory.store_knowledge("unrelated foxtrot words")
    edges = _similar_edges(memory)
    assert set(edges) == {(above, first), (above, at_threshold)}
    assert edges[(above, first)] == pytest.approx(0.4)
    assert edges[(above, at_threshold)] == pytest.approx(0.4)


@pytest.fixture
def hub(memory):
    """A fact matching the query 'zulu', and four facts sharing no word with it or
    each other, joined to it by SIMILAR_TO edges of chosen weights."""
    center = memory.store_knowledge("zulu anchor statement", "zulu topic", 0.9)
    weights = {0.9: "kilo lima mike", 0.55: "november oscar papa",
               0.35: "quebec romeo sierra", 0.2: "tango uniform victor"}  # fmt: skip
    ids = {}
    for weight, words in weights.items():
        ids[weight] = memory.store_knowledge(words, words.split()[0], 0.9)
        memory.graph.execute(
            "MATCH (a:SemanticMemory {memory_id: $a}), (b:SemanticMemory {memory_id: $b}) "
            "CREATE (a)-[:SIMILAR_TO {weight: $w, metadata: ''}]->(b)",
            {"a": center, "b": ids[weight], "w": weight},
        )
    assert set(_similar_edges(memory)) == {(center, i) for i in ids.values()}  # no others
    return center, ids


@pytest.mark.parametrize(
    ("threshold", "kept"),
    [(0.1, (0.9, 0.55, 0.35, 0.2)), (0.3, (0.9, 0.55, 0.35)), (0.5, (0.9, 0.55)),
     (0.6, (0.9,)), (0.95, ())],
)  # fmt: skip
def test_retrieval_follows_only_edges_at_or_above_the_threshold(memory, hub, threshold, kept):
    center, ids = hub
    subgraph = memory.retrieve_subgraph("zulu", similarity_threshold=threshold, profile="ranked")
    assert {n.node_id for n in subgraph.nodes} == {center} | {ids[w] for w in kept}


def test_retrieval_default_threshold_is_0_3(memory, hub):
    center, ids = hub
    found = {n.node_id for n in memory.retrieve_subgraph("zulu", profile="ranked").nodes}
    assert found == {center, ids[0.9], ids[0.55], ids[0.35]}


def test_retrieval_without_depth_follows_no_similar_edge(memory, hub):
    center, _ = hub
    subgraph = memory.retrieve_subgraph(
        "zulu", max_depth=0, similarity_threshold=0.0, profile="ranked"
    )
    assert [n.node_id for n in subgraph.nodes] == [center]
