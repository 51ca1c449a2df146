"""Semantic facts of CognitiveMemory: similarity edges and keyword search.

Kept apart from the class so the ranking rules can be read (and tuned) in one
place. The rules, which the API promises:

* a fact is returned only if one of the query's keywords occurs in its concept
  or content, and at least ``min_confidence``;
* the best concept match comes first: a concept equal to the query, then the
  number of keywords the concept holds, then a blend of keyword coverage, word
  overlap and confidence;
* one scan fetches ``limit * GRAPH_FETCH_MULTIPLIER`` candidates (best concept
  and keyword matches first); then the SIMILAR_TO neighbours (one hop, either
  direction) of the best ``limit`` are read: a neighbour that matches joins the
  candidates even if the scan's window cut it off, and a fact linked to a strong
  seed ranks higher (graph support).
"""

from __future__ import annotations

from functools import cache
from typing import Any

from memexplorer.memory.cognitive_schema import fact_from_row
from memexplorer.memory.memory_types import SemanticFact
from memexplorer.storage.shared_graph import SharedGraph

__all__ = [
    "GRAPH_FETCH_MULTIPLIER",
    "MAX_SEARCH_KEYWORDS",
    "MIN_TOKEN_LENGTH",
    "SIMILARITY_CANDIDATE_LIMIT",
    "SIMILARITY_THRESHOLD",
    "all_facts",
    "jaccard",
    "keyword_filter",
    "query_keywords",
    "search_facts",
    "similar_facts",
    "tokenize",
]

#: A SIMILAR_TO edge joins two facts whose word sets overlap at least this much.
SIMILARITY_THRESHOLD = 0.6
#: A new fact is compared with this many of the agent's most recent facts.
SIMILARITY_CANDIDATE_LIMIT = 50
#: Words of a query beyond this many are ignored (long queries stay cheap).
MAX_SEARCH_KEYWORDS = 6
#: The keyword scan fetches this many candidates per result wanted.
GRAPH_FETCH_MULTIPLIER = 5
#: Words shorter than this carry no meaning for matching.
MIN_TOKEN_LENGTH = 3

# The reference library's word list, so SIMILAR_TO edges match what agents wrote.
_STOPWORDS = frozenset(
    {
        "the", "and", "for", "that", "this", "with", "are", "was", "were", "has", "have",
        "had", "not", "but", "from", "they", "its", "been", "into", "than", "then", "them",
        "can", "will", "may", "our", "also",
    }
)  # fmt: skip
_PUNCTUATION = ".,!?;:\"'()[]{}-_/"


def tokenize(text: str) -> set[str]:
    """Lowercased words, punctuation trimmed, stop words and short words dropped."""
    words = (raw.strip(_PUNCTUATION) for raw in (text or "").lower().split())
    return {w for w in words if len(w) >= MIN_TOKEN_LENGTH and w not in _STOPWORDS}


def jaccard(a: set[str], b: set[str]) -> float:
    if not a or not b:
        return 0.0
    return len(a & b) / len(a | b)


def query_keywords(query: str) -> list[str]:
    """The query's keywords in order, at most MAX_SEARCH_KEYWORDS.

    Meaningful words first; a query of only short words ("Go", "CI") keeps
    them rather than matching nothing.
    """
    raw = [w.strip(_PUNCTUATION) for w in (query or "").lower().split()]
    words = [w for w in raw if len(w) >= MIN_TOKEN_LENGTH and w not in _STOPWORDS]
    if not words:
        words = [w for w in raw if w]
    return list(dict.fromkeys(words))[:MAX_SEARCH_KEYWORDS]


def keyword_filter(alias: str, fields: tuple[str, ...], count: int) -> str:
    """``(lower(a.f) CONTAINS $k0 OR ...) OR (...)`` for ``count`` keyword parameters.

    The text depends only on the count (never on the words), so each shape is
    compiled once and the words travel as parameters.
    """
    terms = [
        "(" + " OR ".join(f"lower({alias}.{f}) CONTAINS $k{i}" for f in fields) + ")"
        for i in range(count)
    ]
    return " OR ".join(terms)


def _hits(text: str, keywords: list[str]) -> int:
    return sum(1 for k in keywords if k in text)


@cache
def _scan_query(count: int) -> str:
    def total(test: str) -> str:
        return " + ".join(f"CASE WHEN {test.format(i=i)} THEN 1 ELSE 0 END" for i in range(count))

    any_hit = " OR ".join(f"c CONTAINS $k{i} OR t CONTAINS $k{i}" for i in range(count))
    return f"""
        MATCH (s:SemanticMemory)
        WHERE s.agent_id = $agent AND s.confidence >= $min_confidence
        WITH s, lower(s.concept) AS c, lower(s.content) AS t
        WHERE {any_hit}
        WITH s, c = $query AS exact, {total("c CONTAINS $k{i}")} AS concept_hits,
             {total("(c CONTAINS $k{i} OR t CONTAINS $k{i})")} AS hits
        RETURN {fact_from_row.returning("s")}
        ORDER BY exact DESC, concept_hits DESC, hits DESC, s.confidence DESC, s.created_at DESC
        LIMIT $fetch"""


# Measured at 10k facts: ``IN $ids`` 5 ms; UNWIND with a primary-key MATCH per
# seed 40 ms (kuzu joins it against the rel table); one query per seed 13 ms.
_NEIGHBOURS = f"""
    MATCH (s:SemanticMemory)-[r:SIMILAR_TO]-(n:SemanticMemory)
    WHERE s.node_id IN $ids AND n.agent_id = $agent AND n.confidence >= $min_confidence
    RETURN r.similarity_score, {fact_from_row.returning("n")}"""

#: How much a SIMILAR_TO link to one of the best seeds adds to a fact's score.
GRAPH_SUPPORT_WEIGHT = 0.25


def all_facts(
    graph: SharedGraph, agent: str, limit: int, min_confidence: float = 0.0
) -> list[SemanticFact]:
    """The agent's facts, most confident first; ties in table (insertion) order, as
    the library's ``ORDER BY s.confidence DESC`` gives them."""
    rows = graph.rows(
        f"""MATCH (s:SemanticMemory)
            WHERE s.agent_id = $agent AND s.confidence >= $min_confidence
            RETURN {fact_from_row.returning("s")}
            ORDER BY s.confidence DESC, offset(id(s)) LIMIT $limit""",
        {"agent": agent, "min_confidence": float(min_confidence), "limit": max(int(limit), 0)},
        reuse=True,
    )
    return [fact_from_row(row) for row in rows]


class _Ranking:
    """The sort key of a candidate: exact concept, concept hits, then a blend."""

    def __init__(self, query: str, keywords: list[str]) -> None:
        self.text = " ".join(query.lower().split())
        self.keywords = keywords
        self.tokens = tokenize(query)
        self.support: dict[str, float] = {}

    def key(self, row: list[Any]) -> tuple[bool, int, float]:
        """Ranks a fact_from_row.fields row (facts are built only for the rows kept)."""
        node_id, concept, content, confidence = row[0], row[1] or "", row[2] or "", row[3] or 0.0
        lowered = concept.lower()
        coverage = _hits(f"{lowered}\n{content.lower()}", self.keywords) / len(self.keywords)
        overlap = jaccard(self.tokens, tokenize(f"{concept} {content}"))
        blend = (0.7 * coverage + 0.3 * overlap) * (0.5 + 0.5 * confidence)
        blend += GRAPH_SUPPORT_WEIGHT * self.support.get(node_id, 0.0)
        return (lowered == self.text, _hits(lowered, self.keywords), blend)


def _expand(
    graph: SharedGraph,
    agent: str,
    min_confidence: float,
    found: dict[str, list[Any]],
    seeds: list[str],
    ranking: _Ranking,
) -> None:
    """Follow SIMILAR_TO one hop from the seeds: matching neighbours join the
    candidates, and every neighbour earns support from its strongest link."""
    rows = graph.rows(
        _NEIGHBOURS,
        {"ids": seeds, "agent": agent, "min_confidence": float(min_confidence)},
        reuse=True,
    )
    for row in rows:
        score, node_id = float(row[0] or 0.0), row[1]
        if node_id not in found:
            lowered = f"{(row[2] or '').lower()}\n{(row[3] or '').lower()}"
            if not _hits(lowered, ranking.keywords):
                continue  # a fact holding no query keyword is never returned
            found[node_id] = row[1:]
        ranking.support[node_id] = max(ranking.support.get(node_id, 0.0), score)


def search_facts(
    graph: SharedGraph,
    agent: str,
    query: str,
    limit: int,
    min_confidence: float,
    expand: bool = True,
) -> list[SemanticFact]:
    """Facts matching the query's keywords, best concept match first (see module doc)."""
    limit = max(int(limit), 0)
    keywords = query_keywords(query)
    if not keywords:
        return all_facts(graph, agent, limit, min_confidence)
    if limit == 0:
        return []
    ranking = _Ranking(query or "", keywords)
    fetch = limit * GRAPH_FETCH_MULTIPLIER
    params: dict[str, Any] = {f"k{i}": word for i, word in enumerate(keywords)}
    params.update(agent=agent, min_confidence=float(min_confidence), query=ranking.text)
    rows = graph.rows(_scan_query(len(keywords)), {**params, "fetch": fetch}, reuse=True)
    found = {row[0]: row for row in rows}
    if expand and found:
        _expand(graph, agent, min_confidence, found, list(found)[:limit], ranking)
    best = sorted(found.values(), key=ranking.key, reverse=True)[:limit]
    return [fact_from_row(row) for row in best]


def similar_facts(
    graph: SharedGraph, agent: str, concept: str, content: str
) -> list[tuple[str, float]]:
    """(id, score) of the agent's recent facts similar enough for a SIMILAR_TO edge."""
    tokens = tokenize(f"{concept} {content}")
    if not tokens:
        return []
    rows = graph.rows(
        """MATCH (s:SemanticMemory) WHERE s.agent_id = $agent
           RETURN s.node_id, s.concept, s.content
           ORDER BY s.created_at DESC, s.node_id DESC LIMIT $limit""",
        {"agent": agent, "limit": SIMILARITY_CANDIDATE_LIMIT},
        reuse=True,
    )
    scored = [(row[0], jaccard(tokens, tokenize(f"{row[1]} {row[2]}"))) for row in rows]
    return [(node_id, score) for node_id, score in scored if score >= SIMILARITY_THRESHOLD]
