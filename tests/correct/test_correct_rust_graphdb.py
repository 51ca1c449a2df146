"""Correcting a fact in amplihack-rs's graph_db store: HierarchicalMemoryLocal's rules
(SIMILAR_TO at content-word Jaccard >= 0.3, empty metadata, nothing superseded),
the graph import's serde_json text. Expected values worked out by hand from the
deploy-agent's six facts (tests/fixtures/rust_graphdb_content.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memexplorer.operator.correct_read import correction_request, plan_correction
from memexplorer.operator.correct_write import correct_fact
from memexplorer.storage.exceptions import StoreUpgradeRequired
from memexplorer.storage.graph_open import open_graph_store

from .store_dump import dump_store, store_diff

AGENT = "deploy-agent"
#: checkout-api replicas is 3, 4, 6, 8 (temporal_index 0 to 3), all concept "replicas".
REPLICAS = [
    "78fc6578-b867-5543-98fb-f5c0eec0eaeb",
    "146106dc-df8a-5098-9e2f-6a534557dacc",
    "fa8cd79a-86b6-5158-b699-b32c56f4fa33",
    "4b516b33-c055-5739-9678-27c564ebdbe7",
]


def test_rust_graph_db_correction(rust_graphdb_home: Path, tmp_path: Path) -> None:
    store = rust_graphdb_home / f"home/.amplihack/hierarchical_memory/{AGENT}/graph_db"
    wish = correction_request(AGENT, REPLICAS[-1], "checkout-api replicas is 9")
    plan = plan_correction(store, wish)
    assert plan.writer == "amplihack-rs" and not plan.supersedes_old
    # amplihack-rs's lbug wrote this store (storage version 40): writing it would upgrade it.
    before_bytes = store.read_bytes()
    with pytest.raises(StoreUpgradeRequired):
        correct_fact(plan, wish, home=tmp_path / "home")
    assert store.read_bytes() == before_bytes
    # As writing mode does after its confirm: the store upgraded, then written.
    open_graph_store(store, read_only=False, allow_upgrade=True).close()
    before = dump_store(store)
    correct_fact(plan_correction(store, wish), wish, home=tmp_path / "home")
    found = store_diff(before, dump_store(store))
    node = found["node"]
    assert (node["concept"], node["content"], node["confidence"], node["entity_name"]) == (
        "replicas", "checkout-api replicas is 9", 0.9, "")  # fmt: skip
    assert (node["tags"], node["metadata"]) == ('["temporal"]', '{"temporal_index":4}')
    # {checkout-api, replicas} on both sides ("is" and the digits are too short): 1.0.
    assert sorted(json.dumps(e, sort_keys=True) for e in found["edges"]) == sorted(
        json.dumps({"rel": "SIMILAR_TO", "source": "<new>", "target": target,
                    "properties": {"weight": 1.0, "metadata": "{}"}}, sort_keys=True)
        for target in REPLICAS
    )  # fmt: skip
    assert found["changes"] == []
