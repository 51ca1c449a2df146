"""Groups of near-identical facts: pairs of one concept scoring at or above a threshold.

The score is :func:`.similarity.compute_similarity`, the function the library uses
for SIMILAR_TO (0.5 x content words + 0.2 x tags + 0.3 x concept words). Facts are
compared only within one concept (its words, lowercased and spaced as
:mod:`.temporal` keys concepts), so the concept term is the same for every pair
of a concept: 1 when the concept keeps a word after the tokenizer, else 0.

Comparing every pair would be quadratic; instead a pair is scored only if it can
reach the threshold. A pair scores at most 0.5 x J + 0.2 + 0.3 x c (J the content
words' Jaccard coefficient), so above 0.2 + 0.3 x c it needs J of at least
``need``; two word sets with a Jaccard coefficient that high share a word among
the first ``|A| - ceil(need x |A|) + 1`` of each, in one order of all words
(prefix filtering: Chaudhuri, Ganti and Kaushik 2006; Bayardo et al. 2007).
Only pairs sharing such a word (and passing the size and positional filters of
:func:`_candidate_pairs`) are scored, exactly, by ``compute_similarity``'s own
formula on word sets split once per fact (:func:`.similarity.weighted_similarity`).
At thresholds that low every pair of a concept is scored. Pairs that reach the
threshold join their facts into one group (connected parts).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from .similarity import compute_similarity, tag_set, tokenize, weighted_similarity

__all__ = ["DuplicateFact", "DuplicateGroup", "concept_key", "group_duplicates"]

#: Slack under the bound, so a rounding error never drops a pair that qualifies.
_SLACK = 1e-9


def concept_key(concept: str) -> str:
    """The concept as groups compare it: lowercased, words single-spaced."""
    return " ".join((concept or "").lower().split())


@dataclass(frozen=True)
class DuplicateFact:
    """One fact as grouping and merging read it."""

    memory_id: str
    concept: str
    content: str
    tags: tuple[str, ...]
    confidence: float
    created_at: str
    temporal_index: int = 0
    #: The stored metadata text, as read (a merge may have to rewrite it).
    metadata: str = field(default="", repr=False)

    def as_node(self) -> dict[str, Any]:
        """The mapping :func:`compute_similarity` reads."""
        return {"content": self.content, "concept": self.concept, "tags": list(self.tags)}

    def to_dict(self) -> dict[str, Any]:
        return {
            "memory_id": self.memory_id,
            "concept": self.concept,
            "content": self.content,
            "tags": list(self.tags),
            "confidence": self.confidence,
            "created_at": self.created_at,
            "temporal_index": self.temporal_index,
        }


@dataclass(frozen=True)
class DuplicateGroup:
    """Facts of one concept joined by pairs at or above the threshold, newest first."""

    concept: str
    facts: tuple[DuplicateFact, ...]
    #: (memory_id, memory_id, score) of every pair at or above the threshold.
    pairs: tuple[tuple[str, str, float], ...] = field(default=())

    @property
    def newest(self) -> DuplicateFact:
        return self.facts[0]

    def score_with(self, keep: DuplicateFact, other: DuplicateFact) -> float:
        return compute_similarity(keep.as_node(), other.as_node())

    def to_dict(self) -> dict[str, Any]:
        return {
            "concept": self.concept,
            "facts": [fact.to_dict() for fact in self.facts],
            "pairs": [{"a": a, "b": b, "similarity": s} for a, b, s in self.pairs],
        }


def _newest_first(fact: DuplicateFact) -> tuple[str, str]:
    return (fact.created_at, fact.memory_id)


def _candidate_pairs(words: list[set[str]], need: float) -> Iterable[tuple[int, int]]:
    """Pairs of indexes whose word sets may have a Jaccard coefficient >= ``need``.

    Each set's words in one order (rarest first); a pair must share a word among the
    first ``|A| - ceil(need x |A|) + 1`` of each (prefix filter), have sizes within
    ``need`` of each other (size filter), and keep enough words after each shared one
    to reach ``need`` (positional filter, Xiao et al. 2008).
    """
    if need <= 0:
        return ((i, j) for i in range(len(words)) for j in range(i + 1, len(words)))
    frequency: dict[str, int] = defaultdict(int)
    for found in words:
        for word in found:
            frequency[word] += 1
    seen: dict[str, list[tuple[int, int]]] = defaultdict(list)
    share = need / (1 + need)
    pairs: list[tuple[int, int]] = []
    for index, found in enumerate(words):
        size = len(found)
        if not size:
            continue
        ordered = sorted(found, key=lambda w: (frequency[w], w))
        prefix = max(size - math.ceil(need * size) + 1, 1)
        overlap: dict[int, int] = {}
        for position, word in enumerate(ordered[:prefix]):
            for other, other_position in seen[word]:
                other_size = len(words[other])
                if overlap.get(other, 0) < 0 or min(size, other_size) < need * max(
                    size, other_size
                ):
                    continue
                least = share * (size + other_size) - _SLACK
                rest = min(size - position - 1, other_size - other_position - 1)
                count = overlap.get(other, 0)
                overlap[other] = count + 1 if count + 1 + rest >= least else -1
            seen[word].append((index, position))
        pairs += [(other, index) for other, count in overlap.items() if count > 0]
    return sorted(pairs)


def _parts(size: int, links: Iterable[tuple[int, int]]) -> list[list[int]]:
    parent = list(range(size))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for a, b in links:
        ra, rb = root(a), root(b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)
    members: dict[int, list[int]] = defaultdict(list)
    for i in range(size):
        members[root(i)].append(i)
    return [found for found in members.values() if len(found) > 1]


def _concept_groups(facts: list[DuplicateFact], threshold: float) -> list[DuplicateGroup]:
    concept = tokenize(facts[0].concept)  # one concept key: the same words for all
    need = (threshold - 0.2 - (0.3 if concept else 0.0)) / 0.5 - _SLACK
    words = [tokenize(fact.content) for fact in facts]
    tags = [tag_set(fact.tags) for fact in facts]
    links: list[tuple[int, int, float]] = []
    for i, j in _candidate_pairs(words, need):
        score = weighted_similarity((words[i], words[j]), (tags[i], tags[j]), (concept, concept))
        if score >= threshold:
            links.append((i, j, score))
    groups = []
    for part in _parts(len(facts), ((i, j) for i, j, _ in links)):
        inside = set(part)
        members = sorted((facts[i] for i in part), key=_newest_first, reverse=True)
        pairs = tuple(
            (facts[i].memory_id, facts[j].memory_id, score) for i, j, score in links if i in inside
        )
        groups.append(DuplicateGroup(members[0].concept, tuple(members), pairs))
    return groups


def group_duplicates(facts: Iterable[DuplicateFact], threshold: float) -> list[DuplicateGroup]:
    """Groups of two or more facts, newest group first (by its newest fact)."""
    by_concept: dict[str, list[DuplicateFact]] = defaultdict(list)
    for fact in facts:
        by_concept[concept_key(fact.concept)].append(fact)
    groups = [
        group
        for members in by_concept.values()
        if len(members) > 1
        for group in _concept_groups(members, threshold)
    ]
    return sorted(groups, key=lambda g: _newest_first(g.newest), reverse=True)
