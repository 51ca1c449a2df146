"""Each reason the missed-facts view gives, on a store built so ranked finds the fact
and the library profile provably does not (facts and edges written directly)."""

from __future__ import annotations

import pytest

from memexplorer.memory.hierarchical_memory import HierarchicalMemory
from memexplorer.memory.hierarchical_schema import create_schema
from memexplorer.memory.retrieval_explain import explain_retrieval
from memexplorer.memory.retrieval_profiles import Knobs
from memexplorer.storage.graph_open import open_graph_store

from .hand_built import AGENT, add_edge, add_fact


def _fact(graph, fact_id: str, content: str, confidence: float, entity: str = "") -> None:
    add_fact(graph, fact_id, content, confidence, created=fact_id, entity=entity)


def _edge(graph, source: str, target: str, weight: float) -> None:
    add_edge(graph, "SIMILAR_TO", source, target, weight=weight, metadata="")


@pytest.fixture(scope="module")
def memory(tmp_path_factory: pytest.TempPathFactory):
    path = tmp_path_factory.mktemp("explain") / "store"
    graph = open_graph_store(path, read_only=False, create="kuzu")
    create_schema(graph)
    for n in range(70):  # 70 "alpha" facts; the last written is the most confident
        _fact(graph, f"alpha-{n:02d}", f"alpha report {n}", 1.0 if n == 69 else 0.5)
    _fact(graph, "bravo", "bravo station", 0.9)
    _fact(graph, "points-at-bravo", "unrelated words here", 0.95)
    _edge(graph, "points-at-bravo", "bravo", 0.8)  # only an edge INTO the seed
    _fact(graph, "sass", "compiles the stylesheets", 0.9, entity="sass")
    for n in range(70):  # "what" matches 70 facts: the library's window fills max_nodes
        _fact(graph, f"what-{n:02d}", f"what happened {n}", 0.3)
    _fact(graph, "delta", "delta wing", 0.9)
    _fact(graph, "delta-friend", "friendly neighbour", 0.9)
    _edge(graph, "delta", "delta-friend", 0.9)
    graph.close()
    with HierarchicalMemory(AGENT, path, mode="read") as opened:
        yield opened


def _reason(memory, query: str, fact_id: str, max_nodes: int = 5) -> tuple[str, str]:
    explanation = explain_retrieval(
        memory.graph, AGENT, memory.rel_tables(), query, knobs=Knobs(max_nodes=max_nodes)
    )
    for item in explanation.missed_as_dicts():
        if item["node_id"] == fact_id:
            return item["cut_by"], item["reason"]
    raise AssertionError(
        f"{fact_id} not missed: {[m['node_id'] for m in explanation.missed_as_dicts()]}"
    )


def test_beyond_a_keywords_unordered_window(memory):
    step, reason = _reason(memory, "alpha", "alpha-69")
    assert step == "keyword windows"
    assert reason.startswith("beyond keyword 'alpha''s unordered window: LIMIT 60 without ORDER BY")


def test_a_hop_in_the_other_direction(memory):
    step, reason = _reason(memory, "bravo", "points-at-bravo")
    assert step == "similarity expansion"
    assert reason.startswith("a hop in the other direction: its SIMILAR_TO edge points to bravo")


def test_a_name_the_entity_extraction_did_not_see(memory):
    # the library strips ' and s from both ends: "sass's" becomes "a", too short to look up
    step, reason = _reason(memory, "sass's theme", "sass", max_nodes=20)
    assert step == "entity search"
    assert reason == "a name the entity extraction did not see: 'sass' (it looked up theme)"


def test_expansion_stopped_at_max_nodes(memory):
    step, reason = _reason(memory, "what delta", "delta-friend")
    assert step == "similarity expansion"
    assert reason == "expansion stopped at max_nodes (5) before seed delta was expanded"


def test_trimmed_by_the_rank(memory):
    explanation = explain_retrieval(
        memory.graph, AGENT, memory.rel_tables(), "alpha", knobs=Knobs(max_nodes=5)
    )
    kept = explanation.subgraph.nodes[0]
    steps = explanation.why_not(kept)
    assert steps[-1].step == "rank and trim" and steps[-1].outcome.endswith(": kept")
    assert not any(step.cut for step in steps)
