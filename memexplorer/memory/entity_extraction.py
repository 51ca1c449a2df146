"""Find the proper noun a fact is about, for entity-centric indexing and retrieval."""

from __future__ import annotations

import re

__all__ = ["ENTITY_PATTERN", "extract_entity_name"]

_NAME_PART = r"[A-Z][a-z]+(?:['\u2019\-][A-Z]?[a-z]+)?"

#: A capitalised name with an apostrophe or hyphen part (O'Brien, Al-Hassan),
#: optionally followed by more capitalised words; or two or more capitalised
#: words (Sarah Chen).
ENTITY_PATTERN = re.compile(
    r"\b("
    rf"[A-Z][a-z]*(?:['\u2019\-][A-Z]?[a-z]+)+(?:\s+{_NAME_PART})*"
    r"|"
    rf"[A-Z][a-z]+(?:\s+{_NAME_PART})+"
    r")\b"
)

_PUNCTUATION = ".,;:!?()[]{}\"'"


def _single_capitalised_word(text: str) -> str:
    """The first capitalised word (longer than two letters) not opening the text."""
    for position, word in enumerate(text.split()):
        if position == 0 or not word[:1].isupper() or len(word) <= 2:
            continue
        cleaned = word.strip(_PUNCTUATION)
        if cleaned[:1].isupper():
            return cleaned.lower()
    return ""


def extract_entity_name(content: str, concept: str = "") -> str:
    """Return the lowercased entity a fact names, or "".

    The concept is tried before the content because it is usually more specific.
    The longest multi-word or apostrophe/hyphen name wins; failing that, a single
    capitalised word that does not start the text.
    """
    for text in (concept, content):
        if not text:
            continue
        matches = ENTITY_PATTERN.findall(text)
        if matches:
            return max(matches, key=len).lower()
        single = _single_capitalised_word(text)
        if single:
            return single
    return ""
