"""The ``library`` profile gives amplihack-memory-lib's own answer on every oracle case.

The oracle (tests/fixtures/make_retrieval_oracle.py) was recorded with the
library itself: 4ae0813 on kuzu 0.11.3 and b3033f7 on ladybug 0.22.0.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import pytest

from memexplorer.memory.hierarchical_memory import HierarchicalMemory

from .oracle import ERAS, answer, oracle, store_path, unpack_era


@pytest.mark.parametrize("era", ERAS)
def test_every_oracle_case_matches(era: str, tmp_path: Path) -> None:
    root = unpack_era(era, tmp_path)
    by_store = defaultdict(list)
    for case in oracle(era)["cases"]:
        by_store[(case["store"], case["agent"])].append(case)
    assert sum(map(len, by_store.values())) >= 450
    mismatches = []
    for (key, agent), cases in by_store.items():
        with HierarchicalMemory(agent, store_path(root, key), mode="read") as memory:
            for case in cases:
                sub = memory.retrieve_subgraph(case["query"], case["max_depth"], case["max_nodes"])
                got = answer(sub)
                for field, value in got.items():
                    if value != case[field]:
                        mismatches.append((key, agent, case["query"], case["max_nodes"], field))
    assert not mismatches, f"{len(mismatches)} differ, first: {mismatches[:5]}"


def test_oracle_covers_both_eras_and_every_store_kind() -> None:
    stores = {case["store"] for era in ERAS for case in oracle(era)["cases"]}
    assert any("gen_kuzu_db" in s for s in stores) and any("gen_ladybug_db" in s for s in stores)
    assert any(s.startswith("generated:demo/") for s in stores)
    assert any("shared_two_agents" in s for s in stores)
    assert sum(len(oracle(era)["cases"]) for era in ERAS) >= 500
