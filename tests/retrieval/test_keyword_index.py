"""The keyword index gives every profile the scan's own answer, follows the store, never writes it.

The reference here is the scan (``MEMEXPLORER_KEYWORD_INDEX=off``) and, for the
``library`` profile, the library's own recorded answers (the oracle).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from store_helpers import checksums

from memexplorer.memory import keyword_matches, retrieval_indexed
from memexplorer.memory.hierarchical_memory import HierarchicalMemory
from memexplorer.memory.retrieval_indexed import index_pending

from .generated_store import AGENT, build_store, make_queries
from .oracle import ERAS, answer, oracle, store_path, unpack_era

PROFILES = ("ranked", "library", "amplihack-rs")


@pytest.fixture
def indexed(monkeypatch: pytest.MonkeyPatch) -> Callable[[bool], None]:
    """Every store gets the index; call with False to have the profiles scan."""
    monkeypatch.setenv("MEMEXPLORER_KEYWORD_INDEX_MIN", "0")

    def switch(on: bool) -> None:
        monkeypatch.setenv("MEMEXPLORER_KEYWORD_INDEX", "on" if on else "off")

    return switch


@pytest.fixture
def decided(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Whether each ranked query was answered by the index (True) or fell back (False)."""
    calls: list[bool] = []
    real = retrieval_indexed.ranked_top

    def counting(*args: Any) -> Any:
        found = real(*args)
        calls.append(found is not None)
        return found

    monkeypatch.setattr(retrieval_indexed, "ranked_top", counting)
    return calls


def _ids_and_edges(memory: HierarchicalMemory, query: str, profile: str, nodes: int) -> Any:
    sub = memory.retrieve_subgraph(query, max_nodes=nodes, profile=profile)
    edges = sorted((e.source_id, e.target_id, e.relationship) for e in sub.edges)
    return [n.node_id for n in sub.nodes], edges


def _differences(
    memory: HierarchicalMemory, cases: list[tuple[str, int]], profiles: tuple[str, ...], switch: Any
) -> list[tuple[str, int, str]]:
    different = []
    for query, nodes in cases:
        for profile in profiles:
            switch(True)
            with_index = _ids_and_edges(memory, query, profile, nodes)
            switch(False)
            if with_index != _ids_and_edges(memory, query, profile, nodes):
                different.append((query, nodes, profile))
    return different


@pytest.mark.parametrize("era", ERAS)
def test_ranked_is_the_same_on_every_oracle_case(
    tmp_path: Path, indexed: Callable[[bool], None], decided: list[bool], era: str
) -> None:
    root = unpack_era(era, tmp_path)
    by_store = defaultdict(list)
    for case in oracle(era)["cases"]:
        by_store[(case["store"], case["agent"])].append((case["query"], case["max_nodes"]))
    different = []
    for (key, agent), cases in by_store.items():
        with HierarchicalMemory(agent, store_path(root, key), mode="read") as memory:
            different += _differences(memory, cases, ("ranked",), indexed)
    assert not different, f"{len(different)} differ, first: {different[:5]}"
    assert len(decided) >= 450 and sum(decided) >= 0.9 * len(decided)


@pytest.mark.parametrize("era", ERAS)
def test_library_profile_with_the_index_is_the_librarys_answer(
    tmp_path: Path, indexed: Callable[[bool], None], era: str
) -> None:
    root = unpack_era(era, tmp_path)
    indexed(True)
    by_store = defaultdict(list)
    for case in oracle(era)["cases"]:
        by_store[(case["store"], case["agent"])].append(case)
    mismatches = []
    for (key, agent), cases in by_store.items():
        with HierarchicalMemory(agent, store_path(root, key), mode="read") as memory:
            for case in cases:
                sub = memory.retrieve_subgraph(case["query"], case["max_depth"], case["max_nodes"])
                got = answer(sub)
                if any(got[field] != case[field] for field in got):
                    mismatches.append((key, case["query"]))
    assert not mismatches, f"{len(mismatches)} differ, first: {mismatches[:5]}"


@pytest.mark.parametrize("walks", [False, True], ids=["candidates", "walks"])
def test_every_profile_is_the_same_on_200_generated_queries(
    tmp_path: Path,
    indexed: Callable[[bool], None],
    decided: list[bool],
    monkeypatch: pytest.MonkeyPatch,
    walks: bool,
) -> None:
    if walks:  # every common word is walked, not read whole
        monkeypatch.setattr(keyword_matches, "CANDIDATE_CAP", 40)
    store = build_store(tmp_path / "gen_db")
    queries = make_queries()[: 100 if walks else 200]
    with HierarchicalMemory(AGENT, store, mode="read") as memory:
        different = _differences(memory, queries, ("ranked",), indexed)
        # The other profiles' keyword steps on a quarter of them (the oracle covers library).
        different += _differences(memory, queries[::4], ("library", "amplihack-rs"), indexed)
    assert not different, f"{len(different)} differ, first: {different[:5]}"
    assert sum(decided) >= 0.75 * len(queries)


def test_a_walk_too_long_falls_back_to_the_scan(
    tmp_path: Path, indexed: Callable[[bool], None], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(keyword_matches, "CANDIDATE_CAP", 10)
    monkeypatch.setattr(keyword_matches, "WALK_CAP", 64)
    store = build_store(tmp_path / "gen_db", n=1200)
    with HierarchicalMemory(AGENT, store, mode="read") as memory:
        different = _differences(memory, make_queries(40), PROFILES, indexed)
    assert not different


def test_the_index_follows_a_write(tmp_path: Path, indexed: Callable[[bool], None]) -> None:
    store = build_store(tmp_path / "gen_db", n=400)
    indexed(True)
    with HierarchicalMemory(AGENT, store) as memory:
        assert memory.retrieve_subgraph("marzipan", profile="ranked").nodes == []
        new = memory.store_knowledge("The marzipan ledger moved", "Marzipan", 0.9)
        for profile in PROFILES:
            found = memory.retrieve_subgraph("marzipan", profile=profile).nodes
            assert [n.node_id for n in found] == [new], profile


def test_the_store_is_never_written(
    tmp_path: Path, indexed: Callable[[bool], None], _private_index_cache: Path
) -> None:
    store = build_store(tmp_path / "store" / "gen_db", n=400)
    before = checksums(store.parent)
    indexed(True)
    with HierarchicalMemory(AGENT, store, mode="read") as memory:
        for profile in PROFILES:
            assert memory.retrieve_subgraph("refund ledger", profile=profile).nodes
    assert checksums(store.parent) == before
    assert list(_private_index_cache.glob("*.sqlite"))


def test_the_query_box_knows_when_a_query_will_build_the_index(
    tmp_path: Path, indexed: Callable[[bool], None], monkeypatch: pytest.MonkeyPatch
) -> None:
    store = build_store(tmp_path / "gen_db", n=300)
    indexed(True)
    with HierarchicalMemory(AGENT, store) as memory:
        assert index_pending(memory.graph, AGENT)
        memory.retrieve_subgraph("ledger", profile="ranked")
        assert not index_pending(memory.graph, AGENT)
        memory.store_knowledge("Another ledger fact", "Ledger", 0.5)
        assert index_pending(memory.graph, AGENT)
        monkeypatch.setenv("MEMEXPLORER_KEYWORD_INDEX_MIN", "301")  # 301 facts now
        assert index_pending(memory.graph, AGENT)
        monkeypatch.setenv("MEMEXPLORER_KEYWORD_INDEX_MIN", "302")  # too small: it scans
        assert not index_pending(memory.graph, AGENT)
