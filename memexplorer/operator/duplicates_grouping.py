"""Groups of near-identical facts: pairs of one concept scoring at or above a threshold.

The score is :func:`.similarity.compute_similarity`, the function the library uses
for SIMILAR_TO (0.5 x content words + 0.2 x tags + 0.3 x concept words). Facts are
compared only within one concept (its words, lowercased and spaced as
:mod:`.temporal` keys concepts), so the concept term is the same for every pair
of a concept: 1 when the concept keeps a word after the tokenizer, else 0.

Comparing every pair would be quadratic; :mod:`.duplicates_candidates` picks the
pairs that can reach the threshold (their tags give an exact bound on the words
they need; an inverted index on words with prefix filtering finds pairs with that
many words in common), and each is scored exactly, by ``compute_similarity``'s own
formula on word sets split once per fact (:func:`.similarity.weighted_similarity`).
Pairs that reach the threshold join their facts into one group (connected parts).
A :class:`.progress.TaskControl` sees the facts compared and pairs scored, and
can stop the search between chunks of them.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from memexplorer.memory.similarity import compute_similarity, tag_set, tokenize, weighted_similarity
from memexplorer.operator.duplicates_candidates import SLACK, Tally, candidate_pairs
from memexplorer.storage.progress import TaskControl

__all__ = ["DuplicateFact", "DuplicateGroup", "concept_key", "group_duplicates"]


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


def _concept_groups(facts: list[DuplicateFact], threshold: float, tally: Tally
                    ) -> list[DuplicateGroup]:  # fmt: skip
    concept = tokenize(facts[0].concept)  # one concept key: the same words for all
    rest = threshold - (0.3 if concept else 0.0)
    words = [tokenize(fact.content) for fact in facts]
    tags = [tag_set(fact.tags) for fact in facts]
    links: dict[tuple[int, int], float] = {}
    floor = rest - 0.2 - SLACK  # the least word part of a pair whose tags match fully
    scored = 0
    for a, b in candidate_pairs(words, tags, rest, tally):
        i, j = (a, b) if a < b else (b, a)
        scored += 1
        if scored & 4095 == 0:
            tally.scored += 4096
            tally.check()
        if floor > 0:  # most candidates fail on words alone, found cheaply
            shared = len(words[i] & words[j])
            if 0.5 * shared / (len(words[i]) + len(words[j]) - shared or 1) < floor:
                continue
        score = weighted_similarity((words[i], words[j]), (tags[i], tags[j]), (concept, concept))
        if score >= threshold:
            links[(i, j)] = score
    tally.scored += scored & 4095
    groups = []
    for part in _parts(len(facts), links):
        inside = set(part)
        members = sorted((facts[i] for i in part), key=_newest_first, reverse=True)
        pairs = tuple(
            (facts[i].memory_id, facts[j].memory_id, score)
            for (i, j), score in sorted(links.items())
            if i in inside
        )
        groups.append(DuplicateGroup(members[0].concept, tuple(members), pairs))
    return groups


def group_duplicates(
    facts: Iterable[DuplicateFact], threshold: float, control: TaskControl | None = None
) -> list[DuplicateGroup]:
    """Groups of two or more facts, newest group first (by its newest fact).

    ``control`` hears the facts compared and pairs scored, and may stop the search
    (:class:`.progress.OperationCancelled`)."""
    by_concept: dict[str, list[DuplicateFact]] = defaultdict(list)
    for fact in facts:
        by_concept[concept_key(fact.concept)].append(fact)
    tally = Tally(control, sum(len(members) for members in by_concept.values()))
    groups: list[DuplicateGroup] = []
    for members in by_concept.values():
        tally.check()
        if len(members) > 1:
            groups += _concept_groups(members, threshold, tally)
        tally.compared += len(members)
    tally.check()
    return sorted(groups, key=lambda g: _newest_first(g.newest), reverse=True)
