"""Seed 003's export_graph()/import_graph() shape ({"nodes", "edges", "agent_name",
"exported_at"}) beside transfer format 1.1: converted by hand, round-tripped
through the engine and the CLI, and refused when a record's type is unknown."""

from __future__ import annotations

import json

import pytest

from memexplorer.cli.main import main
from memexplorer.memory.hierarchical_memory import HierarchicalMemory
from memexplorer.storage.exceptions import ImportDataError
from memexplorer.storage.graph_shape import from_graph_shape, is_graph_shape, to_graph_shape

FACT = {"memory_id": "f1", "concept": "c", "content": "x", "confidence": 0.5, "source_id": "e1",
        "tags": ["t"], "metadata": {"k": 1}, "created_at": "1", "entity_name": ""}  # fmt: skip
FACT2 = {**FACT, "memory_id": "f2", "created_at": "2"}
EPISODE = {"memory_id": "e1", "content": "y", "source_label": "session", "tags": [],
           "metadata": {}, "created_at": "0"}  # fmt: skip
SUPERSEDES = {"source_id": "f2", "target_id": "f1", "reason": "r", "temporal_delta": "d"}
TRANSITION = {"source_id": "f2", "target_id": "f1", "from_value": "2", "to_value": "1",
              "turn": 1, "transition_type": "update"}  # fmt: skip
DERIVES = {"source_id": "f1", "target_id": "e1", "extraction_method": "m", "confidence": 0.9}
SIMILAR = {"source_id": "f1", "target_id": "f2", "weight": 0.4, "metadata": {}}
V11 = {
    "agent_name": "a", "exported_at": "123", "format_version": "1.1",
    "semantic_nodes": [FACT, FACT2], "episodic_nodes": [EPISODE],
    "similar_to_edges": [SIMILAR], "derives_from_edges": [DERIVES],
    "supersedes_edges": [SUPERSEDES], "transitioned_to_edges": [TRANSITION],
    "statistics": {"semantic_node_count": 2, "episodic_node_count": 1,
                   "similar_to_edge_count": 1, "derives_from_edge_count": 1,
                   "supersedes_edge_count": 1, "transitioned_to_edge_count": 1},
}  # fmt: skip
GRAPH = {
    "agent_name": "a", "exported_at": "123",
    "nodes": [{"type": "SemanticMemory", **FACT}, {"type": "SemanticMemory", **FACT2},
              {"type": "EpisodicMemory", **EPISODE}],
    "edges": [{"type": "SIMILAR_TO", **SIMILAR}, {"type": "DERIVES_FROM", **DERIVES},
              {"type": "SUPERSEDES", **SUPERSEDES}, {"type": "TRANSITIONED_TO", **TRANSITION}],
}  # fmt: skip


def test_the_two_shapes_convert_into_each_other():
    assert to_graph_shape(V11) == GRAPH
    assert from_graph_shape(GRAPH) == V11
    assert is_graph_shape(GRAPH) and not is_graph_shape(V11)


@pytest.mark.parametrize(
    "broken",
    [{**GRAPH, "nodes": [{"type": "Fact", **FACT}]},
     {**GRAPH, "edges": [{**SIMILAR}]},
     {**GRAPH, "nodes": {"type": "SemanticMemory"}}],
)  # fmt: skip
def test_an_unknown_record_is_refused(broken):
    with pytest.raises(ImportDataError):
        from_graph_shape(broken)


def _canonical(data: dict) -> dict[str, list[str]]:
    return {key: sorted(json.dumps(item, sort_keys=True) for item in data[key])
            for key in ("nodes", "edges")}  # fmt: skip


def _sorted(items: list) -> list[str]:
    return sorted(json.dumps(item, sort_keys=True) for item in items)


def test_export_graph_and_import_graph_round_trip(tmp_path):
    with HierarchicalMemory("writer", tmp_path / "a") as memory:
        for turn, value in enumerate((10, 20, 30), 1):
            memory.store_knowledge(f"The queue holds {value} jobs", "queue depth",
                                   temporal_metadata={"temporal_index": turn})  # fmt: skip
        memory.store_episode("The queue was drained", "session")
        graph = memory.export_graph()
    assert set(graph) == {"nodes", "edges", "agent_name", "exported_at"}
    assert graph["agent_name"] == "writer"
    types = sorted(item["type"] for item in graph["edges"])
    assert types.count("SUPERSEDES") == 2 and types.count("TRANSITIONED_TO") == 2
    assert sorted(n["type"] for n in graph["nodes"]) == ["EpisodicMemory", *["SemanticMemory"] * 3]
    with HierarchicalMemory("reader", tmp_path / "b") as memory:
        memory.import_graph(graph)
        back = memory.export_graph()
    assert _canonical(back) == _canonical(graph)


def test_cli_graph_format_round_trip(tmp_path, capsys):
    source = tmp_path / "v11.json"
    source.write_text(json.dumps(V11))
    assert main(["import", "a", str(source), "--storage-path", str(tmp_path / "one")]) == 0
    out = tmp_path / "graph.json"
    assert main(["export", "a", str(out), "--format", "graph", "--storage-path",
                 str(tmp_path / "one")]) == 0  # fmt: skip
    written = json.loads(out.read_text())
    assert set(written) == {"nodes", "edges", "agent_name", "exported_at"}
    assert _canonical(written) == _canonical(GRAPH)
    for fmt in ("json", "graph"):  # import reads the graph shape with either token
        store = tmp_path / f"two-{fmt}"
        assert main(["import", "a", str(out), "--format", fmt, "--storage-path", str(store)]) == 0
        again = tmp_path / f"again-{fmt}.json"
        assert main(["export", "a", str(again), "--storage-path", str(store)]) == 0
        data = json.loads(again.read_text())
        for key in ("semantic_nodes", "episodic_nodes", "similar_to_edges",
                    "derives_from_edges", "supersedes_edges", "transitioned_to_edges"):  # fmt: skip
            assert _sorted(data[key]) == _sorted(V11[key]), key
    capsys.readouterr()
    args = ["import", "a", str(source), "--format", "graph", "--storage-path", str(tmp_path / "3")]
    assert main(args) == 2
    assert "not in the graph shape" in capsys.readouterr().err
