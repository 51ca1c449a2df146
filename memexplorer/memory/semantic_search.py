"""Relevance ranking of experiences for a query, without embeddings.

A score is word overlap between the query and the experience's context, weighted
up for patterns (1.5x) and insights (1.3x), by confidence (0.5 + 0.5 * confidence)
and by recency (30% less over 90 days, never below 0.7x), capped at 1.0, as the
reference library scores them.
"""

from __future__ import annotations

import string
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from memexplorer.memory.experience import Experience, ExperienceType

__all__ = [
    "TYPE_WEIGHTS",
    "SemanticSearchEngine",
    "TFIDFSimilarity",
    "calculate_relevance",
    "recency_factor",
    "retrieve_relevant_experiences",
]

TYPE_WEIGHTS: dict[ExperienceType, float] = {
    ExperienceType.PATTERN: 1.5,
    ExperienceType.INSIGHT: 1.3,
}
RECENCY_WINDOW_DAYS = 90.0
RECENCY_DECAY = 0.3
RECENCY_FLOOR = 0.7
_SECONDS_PER_DAY = 86_400.0


def _words(text: str) -> frozenset[str]:
    """Lower-cased words with surrounding punctuation removed (a bare "!!" stays a word)."""
    return frozenset(word.strip(string.punctuation) or word for word in text.lower().split())


def _jaccard(first: frozenset[str], second: frozenset[str]) -> float:
    if not first or not second:
        return 0.0
    return len(first & second) / len(first | second)


class TFIDFSimilarity:
    """Text similarity under the reference's name: the Jaccard overlap of the two word sets.

    Case and surrounding punctuation are ignored; identical texts score 1.0 and
    an empty or blank text scores 0.0.
    """

    def calculate(self, text1: str, text2: str) -> float:
        """Similarity of two texts, in [0, 1]."""
        return _jaccard(_words(text1), _words(text2))


def _local_now() -> datetime:
    return datetime.now().astimezone()


def _age_days(timestamp: datetime, now: datetime) -> float:
    """Days since ``timestamp``; naive timestamps are local time, as ``datetime.now()`` gives."""
    reference = now if timestamp.tzinfo is not None else now.replace(tzinfo=None)
    return (reference - timestamp).total_seconds() / _SECONDS_PER_DAY


def recency_factor(timestamp: datetime, now: datetime | None = None) -> float:
    """1.0 for now (or the future), falling linearly by 0.3 over 90 days, then 0.7."""
    age = max(0.0, _age_days(timestamp, now or _local_now()))
    return max(RECENCY_FLOOR, 1.0 - (age / RECENCY_WINDOW_DAYS) * RECENCY_DECAY)


def _weighted(similarity: float, experience: Experience, now: datetime) -> float:
    score = similarity * TYPE_WEIGHTS.get(experience.experience_type, 1.0)
    score *= 0.5 + 0.5 * experience.confidence
    score *= recency_factor(experience.timestamp, now)
    return min(score, 1.0)


def calculate_relevance(experience: Experience, query: str) -> float:
    """How relevant the experience is to ``query``, in [0, 1]."""
    similarity = TFIDFSimilarity().calculate(experience.context, query)
    return _weighted(similarity, experience, _local_now())


@dataclass(frozen=True)
class _Indexed:
    experience: Experience
    words: frozenset[str]


def _rank(
    entries: Iterable[_Indexed], query: str, top_k: int, min_similarity: float
) -> list[Experience]:
    """The ``top_k`` entries scoring at least ``min_similarity``, best first (ties keep order)."""
    if top_k <= 0:
        return []
    query_words = _words(query)
    now = _local_now()
    scored = []
    for entry in entries:
        score = _weighted(_jaccard(entry.words, query_words), entry.experience, now)
        if score >= min_similarity:
            scored.append((score, entry.experience))
    scored.sort(key=lambda pair: pair[0], reverse=True)
    return [experience for _, experience in scored[:top_k]]


def retrieve_relevant_experiences(
    experiences: Iterable[Experience],
    current_context: str,
    top_k: int = 10,
    min_similarity: float = 0.0,
) -> list[Experience]:
    """The ``top_k`` most relevant experiences whose relevance is at least ``min_similarity``."""
    entries = (_Indexed(exp, _words(exp.context)) for exp in experiences)
    return _rank(entries, current_context, top_k, min_similarity)


class SemanticSearchEngine:
    """A corpus of experiences with their word sets computed once, for repeated searches."""

    def __init__(self, experiences: Iterable[Experience]) -> None:
        self._index: dict[str, _Indexed] = {}
        for experience in experiences:
            self.add_experience(experience)

    @property
    def corpus_size(self) -> int:
        """How many experiences can be found."""
        return len(self._index)

    def is_indexed(self) -> bool:
        """Always true: the index is kept up to date on every change."""
        return True

    def search(self, query: str, top_k: int = 10) -> list[Experience]:
        """The ``top_k`` most relevant experiences for ``query``, best first."""
        return _rank(self._index.values(), query, top_k, 0.0)

    def add_experience(self, experience: Experience) -> None:
        """Index the experience; one with the same id replaces the earlier one."""
        self._index[experience.experience_id] = _Indexed(experience, _words(experience.context))

    def remove_experience(self, experience_id: str) -> None:
        """Forget the experience with this id; an unknown id is ignored."""
        self._index.pop(experience_id, None)
