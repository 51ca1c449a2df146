"""Deterministic text similarity (Jaccard on words and tags), no embeddings.

The weights and the tokenizer are the reference library's, so SIMILAR_TO edges
written by memexplorer carry the same weights as those real agents wrote.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

__all__ = [
    "STOP_WORDS",
    "compute_similarity",
    "compute_tag_similarity",
    "compute_word_similarity",
    "rerank_facts_by_query",
    "tag_set",
    "tokenize",
    "weighted_similarity",
]

STOP_WORDS = frozenset(
    [
        "a",
        "an",
        "the",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "being",
        "have",
        "has",
        "had",
        "do",
        "does",
        "did",
        "will",
        "would",
        "could",
        "should",
        "may",
        "might",
        "shall",
        "can",
        "to",
        "of",
        "in",
        "for",
        "on",
        "with",
        "at",
        "by",
        "from",
        "as",
        "into",
        "about",
        "like",
        "through",
        "after",
        "over",
        "between",
        "out",
        "against",
        "during",
        "without",
        "before",
        "under",
        "around",
        "among",
        "and",
        "but",
        "or",
        "nor",
        "not",
        "so",
        "yet",
        "both",
        "either",
        "neither",
        "each",
        "every",
        "all",
        "any",
        "few",
        "more",
        "most",
        "other",
        "some",
        "such",
        "no",
        "only",
        "own",
        "same",
        "than",
        "too",
        "very",
        "just",
        "because",
        "if",
        "when",
        "where",
        "how",
        "what",
        "which",
        "who",
        "whom",
        "this",
        "that",
        "these",
        "those",
        "it",
        "its",
        "i",
        "me",
        "my",
        "we",
        "our",
        "you",
        "your",
        "he",
        "him",
        "his",
        "she",
        "her",
        "they",
        "them",
        "their",
    ]
)

_PUNCTUATION = ".,;:!?()[]{}\"'"

TEMPORAL_CUES = (
    "change", "changed", "original", "before", "after", "previous", "current", "first",
    "initially", "updated", "revised", "intermediate", "over time", "history", "evolution",
    "timeline", "when",
)  # fmt: skip


def tokenize(text: str | None) -> set[str]:
    """Lowercased words longer than two characters, punctuation trimmed, stop words dropped."""
    if not text:
        return set()
    words = (w for w in text.lower().split() if len(w) > 2)
    return {w.strip(_PUNCTUATION) for w in words} - STOP_WORDS


def _jaccard(a: set[str], b: set[str]) -> float:
    if not a or not b:
        return 0.0
    return len(a & b) / len(a | b)


def compute_word_similarity(text_a: str, text_b: str) -> float:
    """Jaccard coefficient of the two texts' meaningful words (0.0 for empty input)."""
    return _jaccard(tokenize(text_a), tokenize(text_b))


def tag_set(tags: Iterable[str] | None) -> set[str]:
    """Tags as similarity compares them: lowercased, trimmed, empty ones dropped."""
    return {t.lower().strip() for t in tags or () if t.strip()}


def compute_tag_similarity(tags_a: Iterable[str] | None, tags_b: Iterable[str] | None) -> float:
    """Case-insensitive Jaccard coefficient of two tag lists (0.0 for empty input)."""
    return _jaccard(tag_set(tags_a), tag_set(tags_b))


def weighted_similarity(
    words: tuple[set[str], set[str]], tags: tuple[set[str], set[str]],
    concepts: tuple[set[str], set[str]],
) -> float:  # fmt: skip
    """:func:`compute_similarity` of two nodes already split into word, tag and concept
    sets (:func:`tokenize`, :func:`tag_set`), for callers that score one node many times."""
    return 0.5 * _jaccard(*words) + 0.2 * _jaccard(*tags) + 0.3 * _jaccard(*concepts)


def compute_similarity(node_a: Mapping[str, Any], node_b: Mapping[str, Any]) -> float:
    """0.5 x content words + 0.2 x tags + 0.3 x concept words."""
    return weighted_similarity(
        (tokenize(node_a.get("content", "")), tokenize(node_b.get("content", ""))),
        (tag_set(node_a.get("tags", [])), tag_set(node_b.get("tags", []))),
        (tokenize(node_a.get("concept", "")), tokenize(node_b.get("concept", ""))),
    )


def _is_temporal_fact(fact: Mapping[str, Any]) -> bool:
    meta = fact.get("metadata") or {}
    if not isinstance(meta, Mapping):
        return False
    index = meta.get("temporal_index", 0)
    has_index = isinstance(index, int | float) and index > 0
    return bool(has_index or meta.get("source_date") or meta.get("temporal_order"))


def rerank_facts_by_query(
    facts: list[dict[str, Any]], query: str, top_k: int = 0
) -> list[dict[str, Any]]:
    """Order facts by the share of query words in their context and outcome.

    Ties keep their input order; facts matching nothing go last but stay. A
    query with a temporal cue ("over time", "previous", ...) lifts facts that
    carry temporal metadata by 0.15. ``top_k`` > 0 keeps only the first k.
    """
    if not facts or not query:
        return facts
    query_words = tokenize(query)
    if not query_words:
        return facts
    lowered = query.lower()
    temporal = any(cue in lowered for cue in TEMPORAL_CUES)

    def score(fact: dict[str, Any]) -> float:
        words = tokenize(f"{fact.get('context', '')} {fact.get('outcome', '')}")
        if not words:
            return 0.0
        value = len(query_words & words) / len(query_words)
        if temporal and _is_temporal_fact(fact):
            value += 0.15
        return value

    ranked = sorted(enumerate(facts), key=lambda pair: (-score(pair[1]), pair[0]))
    result = [fact for _, fact in ranked]
    return result[:top_k] if top_k > 0 else result
