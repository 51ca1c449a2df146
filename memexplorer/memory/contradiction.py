"""Spot two facts about the same concept that give different numbers."""

from __future__ import annotations

import re

__all__ = ["NUMBER_PATTERN", "detect_contradiction"]

NUMBER_PATTERN = re.compile(r"\b\d+(?:\.\d+)?\b")


def _concept_words(concept: str) -> set[str]:
    return set(concept.lower().split()) if concept else set()


def detect_contradiction(
    content_a: str, content_b: str, concept_a: str = "", concept_b: str = ""
) -> dict[str, object]:
    """``{"contradiction": True, "conflicting_values": "a vs b"}`` or ``{}``.

    Both concepts must share a word longer than two characters, and each
    content must hold a number the other lacks.
    """
    shared = {w for w in _concept_words(concept_a) & _concept_words(concept_b) if len(w) > 2}
    if not shared:
        return {}
    numbers_a = set(NUMBER_PATTERN.findall(content_a or ""))
    numbers_b = set(NUMBER_PATTERN.findall(content_b or ""))
    only_a = numbers_a - numbers_b
    only_b = numbers_b - numbers_a
    if not only_a or not only_b:
        return {}
    return {
        "contradiction": True,
        "conflicting_values": f"{', '.join(sorted(only_a))} vs {', '.join(sorted(only_b))}",
    }
