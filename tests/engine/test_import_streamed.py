"""A streamed import checks the whole file before it writes: a file wrong only in its
very last record, or cut before its end, leaves the store (and its home) as it was,
in replace and merge modes; a correct file is written whole in several batches."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from store_helpers import checksums

from memexplorer.memory import import_spill, import_stream_write
from memexplorer.operator.transfer import import_agent_store
from memexplorer.operator.transfer_common import agent_counts
from memexplorer.storage.exceptions import ImportDataError
from memexplorer.storage.memory_budget import ImportSizes

AGENT = "stream-agent"
FACTS = 3000


def _export(facts: int, *, first: int = 0) -> dict:
    ids = range(first, first + facts)
    return {
        "agent_name": AGENT,
        "format_version": "1.0",
        "semantic_nodes": [
            {
                "memory_id": f"f-{i}",
                "concept": f"c{i}",
                "content": f"fact {i}",
                "confidence": 0.5,
                "source_id": f"e-{i // 10}",
                "tags": ["t"],
                "metadata": {"i": i},
                "created_at": "2026-01-01T00:00:00",
                "entity_name": "",
            }
            for i in ids
        ],
        "episodic_nodes": [
            {
                "memory_id": f"e-{i}",
                "content": f"episode {i}",
                "source_label": "s",
                "tags": [],
                "metadata": {},
                "created_at": "2026-01-01T00:00:00",
            }
            for i in range(first // 10, (first + facts) // 10)
        ],
        "similar_to_edges": [
            {"source_id": f"f-{i}", "target_id": f"f-{i + 1}", "weight": 0.5, "metadata": {}}
            for i in ids[:-1]
        ],
        "derives_from_edges": [
            {
                "source_id": f"f-{i}",
                "target_id": f"e-{i // 10}",
                "extraction_method": "llm",
                "confidence": 0.9,
            }
            for i in ids
        ],
        "supersedes_edges": [
            {
                "source_id": f"f-{i + 1}",
                "target_id": f"f-{i}",
                "reason": "newer",
                "temporal_delta": "1d",
            }
            for i in ids[:-1:100]
        ],
    }


@pytest.fixture
def store(tmp_path, monkeypatch) -> Path:
    """A store holding the agent's first FACTS facts (batches: 300 nodes, 500 edges,
    written as such, the store opened again every 1,000 rows)."""
    monkeypatch.setattr(import_spill, "BATCH_ROWS", 500)
    monkeypatch.setattr(import_spill, "NODE_BATCH_ROWS", 300)
    small = ImportSizes(pool=64 * 1024 * 1024, node_rows=300, edge_rows=500, rows_per_open=1000)
    monkeypatch.setattr(import_stream_write, "import_sizes", lambda **_: small)
    source = tmp_path / "first.json"
    source.write_text(json.dumps(_export(FACTS)))
    path = tmp_path / "home" / "stores" / AGENT
    result = import_agent_store(AGENT, source, storage_path=path, home=tmp_path / "home")
    assert result.counts == {
        "SemanticMemory": FACTS, "EpisodicMemory": FACTS // 10, "SIMILAR_TO": FACTS - 1,
        "DERIVES_FROM": FACTS, "SUPERSEDES": 30, "TRANSITIONED_TO": 0,
    }  # fmt: skip
    return path


def _bad_at_the_end(tmp_path: Path, how: str) -> tuple[Path, str]:
    data = _export(FACTS, first=FACTS)  # new ids: a merge would add every one
    last = len(data["supersedes_edges"]) - 1
    if how == "type":
        data["supersedes_edges"][last]["reason"] = ["newer"]
        words = f"supersedes_edges[{last}].reason: expected str, got list"
    else:
        data["supersedes_edges"][last]["target_id"] = "nobody"
        words = f"supersedes_edges[{last}].target_id: names no SemanticMemory node ('nobody')"
    path = tmp_path / f"bad-{how}.json"
    path.write_text(json.dumps(data))
    return path, words


@pytest.mark.parametrize("merge", [False, True])
@pytest.mark.parametrize("how", ["type", "endpoint"])
def test_a_file_wrong_only_in_its_last_record_writes_nothing(store, tmp_path, merge, how):
    source, words = _bad_at_the_end(tmp_path, how)
    home = tmp_path / "home"
    before = checksums(home)
    with pytest.raises(ImportDataError) as caught:
        import_agent_store(AGENT, source, storage_path=store, home=home, merge=merge)
    assert words in str(caught.value)
    assert checksums(home) == before


@pytest.mark.parametrize("merge", [False, True])
def test_a_file_cut_before_its_end_writes_nothing(store, tmp_path, merge):
    text = json.dumps(_export(FACTS, first=FACTS))
    source = tmp_path / "cut.json"
    source.write_text(text[:-3])  # the last record's closing brace and both lists' ends
    home = tmp_path / "home"
    before = checksums(home)
    with pytest.raises(ImportDataError, match="not valid JSON"):
        import_agent_store(AGENT, source, storage_path=store, home=home, merge=merge)
    assert checksums(home) == before


def test_a_merge_in_batches_adds_every_record_once(store, tmp_path):
    source = tmp_path / "more.json"
    data = _export(FACTS, first=FACTS // 2)  # half of it is in the store already
    data["similar_to_edges"].append(  # an edge to a node of the store, not of the file
        {"source_id": f"f-{FACTS}", "target_id": "f-0", "weight": 1.0, "metadata": {}}
    )
    source.write_text(json.dumps(data))
    result = import_agent_store(AGENT, source, storage_path=store, home=tmp_path / "home",
                                merge=True)  # fmt: skip
    new = FACTS // 2
    assert result.counts["SemanticMemory"] == new
    counts = agent_counts(AGENT, store)
    assert counts["SemanticMemory"] == FACTS + new
    assert counts["EpisodicMemory"] == (FACTS + new) // 10
    # f-0 ... f-4499 in a chain, plus the one edge back to f-0.
    assert counts["SIMILAR_TO"] == FACTS + new - 1 + 1


def test_edge_lists_before_the_node_lists_are_written_after_them(tmp_path, monkeypatch):
    monkeypatch.setattr(import_spill, "BATCH_ROWS", 700)
    data = _export(1000)
    edges_first = {key: data[key] for key in reversed(list(data))}
    assert next(iter(edges_first)) == "supersedes_edges"
    source = tmp_path / "edges-first.json"
    source.write_text(json.dumps(edges_first))
    store = tmp_path / "store"
    result = import_agent_store(AGENT, source, storage_path=store)
    assert result.counts == {
        "SemanticMemory": 1000, "EpisodicMemory": 100, "SIMILAR_TO": 999,
        "DERIVES_FROM": 1000, "SUPERSEDES": 10, "TRANSITIONED_TO": 0,
    }  # fmt: skip
    assert agent_counts(AGENT, store)["DERIVES_FROM"] == 1000
