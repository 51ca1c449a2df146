"""Groups of duplicates on a store with planted duplicates: every expected group and
score is worked out by hand in planted.py (PAIRS), none taken from memexplorer."""

from __future__ import annotations

import math
import random
from pathlib import Path

import pytest

from memexplorer.memory.similarity import compute_similarity
from memexplorer.operator import duplicates_candidates
from memexplorer.operator.duplicates import find_duplicates
from memexplorer.operator.duplicates_grouping import DuplicateFact, group_duplicates
from memexplorer.operator.merge import merge_facts, preview_merge
from memexplorer.storage.exceptions import InvalidInputError

from .planted import AGENT, PAIRS, build_graph_store


@pytest.fixture
def store(tmp_path: Path) -> Path:
    return build_graph_store(tmp_path / "kuzu_db")


def _ids(store: Path, threshold: float) -> list[list[str]]:
    report = find_duplicates(store, AGENT, threshold)
    return [[fact.memory_id for fact in group.facts] for group in report.groups]


def test_groups_newest_first_one_concept_each(store: Path):
    # b2 (03-05) is newer than a3 (03-03): its group comes first; inside, newest first.
    # c1 says word for word what a1 says, under another concept: never with them.
    # "Database" and "database" are one concept (case and spacing aside).
    assert _ids(store, 0.7) == [["b2", "b1"], ["a3", "a2", "a1"]]


def test_pair_exactly_at_the_threshold_is_a_duplicate(store: Path):
    assert PAIRS[("b1", "b2")] == 0.8  # 0.5 x 1 + 0.2 x 0 + 0.3 x 1, exact in binary
    assert _ids(store, 0.8) == [["b2", "b1"], ["a3", "a2", "a1"]]
    assert _ids(store, math.nextafter(0.8, 1.0)) == [["a3", "a2", "a1"]]


def test_a_higher_threshold_splits_a_group(store: Path):
    # a1-a2 score 1.0, each with a3 only 0.9.
    assert _ids(store, 0.95) == [["a2", "a1"]]
    assert _ids(store, 1.0) == [["a2", "a1"]]


def test_low_thresholds_compare_every_pair_of_a_concept(store: Path):
    # At 0.3 a pair needs no shared word (0.3 from the concept alone): d1 joins a1.
    assert PAIRS[("a1", "d1")] == 0.3
    assert _ids(store, 0.3) == [["b2", "b1"], ["a3", "a2", "a1", "d1"]]
    assert _ids(store, 0.05)[1] == ["a3", "a2", "a1", "d1"]  # c1 (cache) never joins


def test_scores_in_the_report_are_the_hand_computed_ones(store: Path):
    report = find_duplicates(store, AGENT, 0.7)
    pairs = {(a, b): score for group in report.groups for a, b, score in group.pairs}
    assert pairs == pytest.approx({k: v for k, v in PAIRS.items() if v >= 0.7})


def test_merged_facts_are_not_listed_again(store: Path, tmp_path: Path):
    merge_facts(preview_merge(store, AGENT, "a3", ["a2", "a1"]), home=tmp_path / "home")
    report = find_duplicates(store, AGENT, 0.7)
    assert [[f.memory_id for f in g.facts] for g in report.groups] == [["b2", "b1"]]
    assert (report.facts, report.superseded) == (7, 2)


@pytest.mark.parametrize("threshold", [0, -0.1, 1.01, float("nan"), "high"])
def test_thresholds_outside_zero_to_one_are_refused(store: Path, threshold: object):
    with pytest.raises(InvalidInputError, match="threshold"):
        find_duplicates(store, AGENT, threshold)  # type: ignore[arg-type]


def _brute_force(facts: list[DuplicateFact], threshold: float) -> set[frozenset[str]]:
    """Every pair of one concept scored, joined into connected parts, the slow way."""
    parent = {f.memory_id: f.memory_id for f in facts}

    def root(x: str) -> str:
        while parent[x] != x:
            x = parent[x]
        return x

    for i, a in enumerate(facts):
        for b in facts[i + 1 :]:
            same = " ".join(a.concept.lower().split()) == " ".join(b.concept.lower().split())
            if same and compute_similarity(a.as_node(), b.as_node()) >= threshold:
                parent[root(a.memory_id)] = root(b.memory_id)
    parts: dict[str, set[str]] = {}
    for f in facts:
        parts.setdefault(root(f.memory_id), set()).add(f.memory_id)
    return {frozenset(p) for p in parts.values() if len(p) > 1}


def _random_facts(seed: int, count: int = 40) -> list[DuplicateFact]:
    rng = random.Random(seed)
    words = [f"w{i}" for i in range(14)]
    return [
        DuplicateFact(
            memory_id=f"f{i}",
            concept=rng.choice(["alpha", "Alpha", "beta gamma", "the"]),
            content=" ".join(rng.sample(words, rng.randint(0, 6))),
            tags=tuple(rng.sample(["x", "y", "z", "q"], rng.randint(0, 3))),
            confidence=0.5,
            created_at=f"2026-01-01T00:00:{i:02d}",
        )
        for i in range(count)
    ]


def _pruned(facts: list[DuplicateFact], threshold: float) -> set[frozenset[str]]:
    return {frozenset(f.memory_id for f in g.facts) for g in group_duplicates(facts, threshold)}


def _bounds(facts: list[DuplicateFact]) -> list[float]:
    """Every score a pair of one concept reaches (a threshold exactly at a pair's
    score is where a bound that is off by a hair drops it), the float just above
    each, and the points where a term of the similarity starts or stops counting."""
    scores = {
        compute_similarity(a.as_node(), b.as_node())
        for i, a in enumerate(facts)
        for b in facts[i + 1 :]
        if a.concept.lower() == b.concept.lower()
    }
    found = {s for s in scores if s > 0} | {math.nextafter(s, 2.0) for s in scores}
    found |= {0.05, 0.2, 0.3, 0.5, 0.7, 0.8, 0.9, 1.0}
    return sorted(t for t in found if 0 < t <= 1)


#: The ways candidates are found: as chosen by size, a pass per pair of tag classes
#: always, one bound for all tagged pairs always.
MODES = {"chosen": {}, "per class pair": {"CLASS_PAIR_LIMIT": 10**9, "FACTS_PER_CLASS_PAIR": 0},
         "one bound": {"CLASS_PAIR_LIMIT": 0}}  # fmt: skip


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("seed", range(6))
def test_pruned_groups_equal_every_pair_at_every_bound(seed: int, mode: str, monkeypatch):
    """At each score a pair reaches (and just above it) the pruned search finds
    exactly the groups of scoring every pair."""
    for name, value in MODES[mode].items():
        monkeypatch.setattr(duplicates_candidates, name, value)
    facts = _random_facts(seed + 100 * len(mode))
    for threshold in _bounds(facts):
        assert _pruned(facts, threshold) == _brute_force(facts, threshold), threshold


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("threshold", [0.35, 0.55, 0.6, 0.7, 0.75, 0.85, 0.9])
def test_pruned_pairs_find_what_every_pair_finds(seed: int, threshold: float):
    """Prefix filtering skips pairs that cannot reach the threshold, and no others."""
    rng = random.Random(seed)
    words = [f"w{i}" for i in range(14)]
    facts = [
        DuplicateFact(
            memory_id=f"f{i}",
            concept=rng.choice(["alpha", "Alpha", "beta gamma", "the"]),
            content=" ".join(rng.sample(words, rng.randint(1, 6))),
            tags=tuple(rng.sample(["x", "y", "z"], rng.randint(0, 2))),
            confidence=0.5,
            created_at=f"2026-01-01T00:00:{i:02d}",
        )
        for i in range(40)
    ]
    found = {frozenset(f.memory_id for f in g.facts) for g in group_duplicates(facts, threshold)}
    assert found == _brute_force(facts, threshold)
