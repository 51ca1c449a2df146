"""The chain view shows a correction as its chain's new current value (library store)."""

from __future__ import annotations

from pathlib import Path

from memexplorer.operator.chains import fact_chain
from memexplorer.operator.correct_read import correction_request, plan_correction
from memexplorer.operator.correct_write import correct_fact
from memexplorer.storage.graph_open import open_graph_store

OPS = "home/.amplihack/hierarchical_memory/ops-agent/kuzu_db"
#: The checkout-api replicas chain: 3, 5, 7, 6 replicas (temporal_index 1 to 4).
CHAIN = ["e6a367d9", "9e80b0eb", "9972a55b", "d542a20b"]


def test_correcting_a_middle_fact_makes_the_correction_current(
    reference_stores: Path, tmp_path: Path
) -> None:
    store = reference_stores / OPS
    with open_graph_store(store) as graph:
        before = fact_chain(graph, "ops-agent", "9972a55b-1911-4f43-95c3-0e10251a1335")
    assert [s.memory_id[:8] for s in before.steps] == CHAIN
    assert before.steps[-1].current
    wish = correction_request(
        "ops-agent", "9972a55b-1911-4f43-95c3-0e10251a1335",
        "checkout-api runs 8 replicas in production",
    )  # fmt: skip
    correct_fact(plan_correction(store, wish), wish, home=tmp_path / "home")
    with open_graph_store(store) as graph:
        after = fact_chain(graph, "ops-agent", wish.node_id)
    assert [s.memory_id[:8] for s in after.steps] == [*CHAIN, wish.node_id[:8]]
    assert [s.current for s in after.steps] == [False, False, False, False, True]
    assert after.steps[-1].value == "8"
    assert after.steps[-1].superseded_by == ""
