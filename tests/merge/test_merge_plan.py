"""The values a merge plans, from facts built by hand: the library's temporal delta,
the numbers that differ as TRANSITIONED_TO values, a confidence lowered only once."""

from __future__ import annotations

import json
from pathlib import Path

from memexplorer.operator.duplicates_grouping import DuplicateFact
from memexplorer.operator.merge_plan import plan_merge
from memexplorer.operator.merge_store import StoreFacts


def _fact(memory_id: str, content: str, turn: int, metadata: dict) -> DuplicateFact:
    return DuplicateFact(memory_id, "team size", content, (), 0.8, f"2026-01-0{turn}", turn,
                         json.dumps(metadata))  # fmt: skip


def test_seed_003_plan_records_changed_numbers_turns_and_lowers_once():
    newer = _fact("n", "The team size is 12 engineers", 5, {"temporal_index": 5})
    older = _fact("o", "The team size is 9 engineers", 2, {"temporal_index": 2})
    lowered = _fact("l", "The team size is 12 engineers", 3,
                    {"temporal_index": 3, "confidence_before_supersede": 0.9})  # fmt: skip
    read = StoreFacts(Path("s"), "a", "kuzu", "memexplorer", (newer, older, lowered), {})
    plan = plan_merge(read, "n", ["o", "l"])
    edges = [(e.rel, e.target, dict(e.properties)) for e in plan.edges]
    assert edges[0][:2] == ("SUPERSEDES", "o")
    assert edges[0][2]["temporal_delta"] == "index 2 -> 5"  # the library's "index OLD -> NEW"
    assert edges[1] == ("TRANSITIONED_TO", "o", {
        "from_value": "12", "to_value": "9", "turn": 5, "transition_type": "update"})  # fmt: skip
    # "l" says 12 like "n": no number differs, so the whole contents are the values.
    assert edges[3][2]["from_value"] == "The team size is 12 engineers"
    assert edges[2][2]["temporal_delta"] == "index 3 -> 5"
    # Only "o" is lowered (0.8 halved); "l" was lowered before and keeps its values.
    assert [(c.memory_id, c.column, c.after) for c in plan.changes] == [
        ("o", "confidence", 0.4),
        ("o", "metadata", json.dumps({"temporal_index": 2, "confidence_before_supersede": 0.8})),
    ]


def test_library_plan_writes_supersedes_only_and_no_delta_without_indexes():
    keep = _fact("k", "Deploys need two approvals", 0, {})
    other = _fact("x", "Deploys need two approvals", 0, {})
    read = StoreFacts(Path("s"), "a", "kuzu", "amplihack-memory-lib", (keep, other), {})
    plan = plan_merge(read, "k", ["x"])
    assert [(e.rel, dict(e.properties)) for e in plan.edges] == [
        ("SUPERSEDES", {"reason": "Merged duplicate (similarity 0.80)", "temporal_delta": ""})
    ]  # same words (0.5 x 1), no tags (0.2 x 0), one concept (0.3 x 1)
    assert plan.changes == ()
