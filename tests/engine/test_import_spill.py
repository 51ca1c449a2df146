"""The rows an import keeps between its check and its write: on disk, never more
than a batch in memory, and read back exactly as they were given."""

from __future__ import annotations

import json

from memexplorer.memory import import_spill
from memexplorer.memory.export_schema import EDGE_SPECS
from memexplorer.memory.import_spill import RowSpill


def test_memory_holds_at_most_a_batch_and_every_row_comes_back(tmp_path, monkeypatch):
    monkeypatch.setattr(import_spill, "NODE_BATCH_ROWS", 100)
    monkeypatch.setattr(import_spill, "BATCH_ROWS", 250)
    spill = RowSpill(tmp_path, "agent-a")
    similar = next(spec for spec in EDGE_SPECS if spec.rel == "SIMILAR_TO")
    held = 0
    for i in range(1000):
        node = {"content": f"e{i}", "source_label": "", "tags": ["t"], "metadata": {"i": i},
                "created_at": "", "memory_id": f"e-{i}"}  # fmt: skip
        spill.node("episodic_nodes", node)
        edge = {"weight": 0.5, "metadata": {} if i % 2 else {"k": i}, "source_id": f"f-{i}",
                "target_id": f"f-{i + 1}"}  # fmt: skip
        spill.edge(similar, edge)
        held = max([held, *(len(rows) for rows in spill.rows.values())])
    spill.close()
    assert held <= 250
    assert spill.tables() == ["EpisodicMemory", "SIMILAR_TO"]  # nodes first
    nodes = [row for batch in spill.batches("EpisodicMemory", 100) for row in batch.to_pylist()]
    assert (
        len(nodes) == 1000
        and [b.num_rows for b in spill.batches("EpisodicMemory", 100)] == [100] * 10
    )
    assert nodes[7] == {"content": "e7", "source_label": "", "tags": '["t"]',
                        "metadata": '{"i": 7}', "created_at": "", "memory_id": "e-7",
                        "agent_id": "agent-a"}  # fmt: skip
    edges = [row for batch in spill.batches("SIMILAR_TO", 250) for row in batch.to_pylist()]
    assert [b.num_rows for b in spill.batches("SIMILAR_TO", 250)] == [250] * 4
    # The writing step asks for larger batches: whole batches of the file put together.
    assert [b.num_rows for b in spill.batches("EpisodicMemory", 250)] == [300, 300, 300, 100]
    assert [b.num_rows for b in spill.batches("SIMILAR_TO", 10_000)] == [1000]
    assert edges[2]["metadata"] == json.dumps({"k": 2}) and edges[3]["metadata"] == ""
    assert (edges[999]["source_id"], edges[999]["target_id"]) == ("f-999", "f-1000")
