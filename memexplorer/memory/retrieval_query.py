"""What a retrieval query asks for: its keywords and the entity names it may be about.

Shared by memexplorer's ranked retrieval (:mod:`.retrieval`) and its explanation
of what was missed (:mod:`.retrieval_explain`).
"""

from __future__ import annotations

import re

from memexplorer.memory.entity_extraction import ENTITY_PATTERN
from memexplorer.memory.similarity import STOP_WORDS

__all__ = ["query_entities", "query_keywords"]

_PUNCTUATION = ".,;:!?()[]{}\"'`"
_SINGLE_OR_MULTI_WORD_NAME = re.compile(
    r"\b([A-Z][a-z]+(?:\s+[A-Z][a-z]+(?:['\u2019\-][A-Z]?[a-z]+)?)*)\b"
)


def query_keywords(query: str) -> list[str]:
    """The query's words worth matching: lowercased, trimmed, longer than two letters.

    Stop words are dropped unless the query has nothing else.
    """
    words = [w.strip(_PUNCTUATION) for w in query.lower().split()]
    words = list(dict.fromkeys(w for w in words if len(w) > 2))
    meaningful = [w for w in words if w not in STOP_WORDS]
    return meaningful or words


def _strip_possessive(word: str) -> str:
    for suffix in ("'s", "\u2019s"):
        if word.endswith(suffix):
            return word[: -len(suffix)]
    return word


def query_entities(query: str) -> list[str]:
    """Entity names a query may be about, lowercased.

    Capitalised names (Sarah Chen, O'Brien, Klaebo) when the query has any;
    otherwise its longer words, so "fatima's hobby" still finds "fatima".
    """
    found = ENTITY_PATTERN.findall(query) + _SINGLE_OR_MULTI_WORD_NAME.findall(query)
    names = [n.lower() for n in found]
    if not names:
        words = (_strip_possessive(w.strip(_PUNCTUATION)) for w in query.lower().split())
        names = [w for w in words if len(w) > 3 and w not in STOP_WORDS]
    return list(dict.fromkeys(n for n in names if len(n) > 2))
