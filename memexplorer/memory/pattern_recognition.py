"""Recurring discoveries become PATTERN experiences once they are seen often enough.

A discovery is a dict with at least a ``"type"``; discoveries are grouped by a
pattern key (:func:`extract_pattern_key`). Lookups by type match every key that
contains the type, as in the reference library. Confidence follows the
reference: ``min(0.5 + occurrences * 0.1, 0.95)`` once the threshold is reached,
then scaled by how often applying the pattern worked.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from memexplorer.memory.experience import Experience, ExperienceType

__all__ = [
    "MAX_PATTERN_CONFIDENCE",
    "PatternDetector",
    "calculate_pattern_confidence",
    "extract_pattern_key",
    "recognize_patterns",
]

MAX_PATTERN_CONFIDENCE = 0.95
MIN_VALIDATED_CONFIDENCE = 0.1
_NAME_LIMIT = 200
_QUOTED_NAME = re.compile(r"Pattern '([^']*)'")


def extract_pattern_key(discovery: Mapping[str, Any]) -> str:
    """The group a discovery belongs to.

    ``type_linktype`` when it has a link type; ``prefix_type`` for a Markdown
    file (the prefix is the name before its first ``_``, or its stem), so
    ``tutorial_1.md`` and ``tutorial_2.md`` group together; otherwise the type.
    """
    kind = discovery.get("type", "unknown")
    if "link_type" in discovery:
        return f"{kind}_{discovery['link_type']}"
    filename = discovery.get("file")
    if isinstance(filename, str) and filename.endswith(".md"):
        prefix = filename.split("_", 1)[0] if "_" in filename else filename[: -len(".md")]
        return f"{prefix}_{kind}"
    return str(kind)


def calculate_pattern_confidence(occurrences: int, threshold: int) -> float:
    """``min(0.5 + occurrences * 0.1, 0.95)``; ``threshold`` is accepted for API compatibility."""
    return min(0.5 + occurrences * 0.1, MAX_PATTERN_CONFIDENCE)


def _validated_confidence(base: float, successes: int, failures: int) -> float:
    """Scale by the success rate (0.7x at none, 1.1x at all); past 5 failures, cut up to 0.2."""
    total = successes + failures
    if total == 0:
        return base
    multiplier = 0.7 + 0.4 * (successes / total)
    if failures > 5:
        multiplier -= min((failures - 5) * 0.02, 0.2)
    return min(max(base * multiplier, MIN_VALIDATED_CONFIDENCE), MAX_PATTERN_CONFIDENCE)


@dataclass
class _PatternRecord:
    """What the detector knows about one pattern key."""

    key: str
    first_seen: datetime
    count: int = 0
    examples: list[dict[str, Any]] = field(default_factory=list)
    successes: int = 0
    failures: int = 0

    @property
    def kind(self) -> str:
        """The discovery type the pattern is named after (the first example's)."""
        return str(self.examples[0].get("type", "unknown")) if self.examples else self.key


def _shorten(name: str) -> str:
    return name if len(name) <= _NAME_LIMIT else name[: _NAME_LIMIT - 3] + "..."


class PatternDetector:
    """Counts discoveries per pattern key and reports the keys seen ``threshold`` times."""

    def __init__(
        self, threshold: int = 3, min_confidence: float = 0.5, max_examples: int = 5
    ) -> None:
        self.threshold = threshold
        self.min_confidence = min_confidence
        self.max_examples = max_examples
        self._records: dict[str, _PatternRecord] = {}

    def add_discovery(self, discovery: Mapping[str, Any]) -> None:
        """Count one discovery under its pattern key, keeping the first few as examples."""
        key = extract_pattern_key(discovery)
        record = self._records.get(key)
        if record is None:
            record = self._records[key] = _PatternRecord(key, datetime.now())
        record.count += 1
        if len(record.examples) < self.max_examples:
            record.examples.append(dict(discovery))

    def _matching(self, pattern_type: str) -> list[_PatternRecord]:
        """The record with exactly this key, else every record whose key contains it."""
        exact = self._records.get(pattern_type)
        if exact is not None:
            return [exact]
        return [record for key, record in self._records.items() if pattern_type in key]

    def _confidence(self, record: _PatternRecord) -> float:
        if record.count < self.threshold:
            return 0.0
        base = calculate_pattern_confidence(record.count, self.threshold)
        return _validated_confidence(base, record.successes, record.failures)

    def get_occurrence_count(self, pattern_type: str) -> int:
        """How many discoveries were counted under keys matching ``pattern_type``."""
        return sum(record.count for record in self._matching(pattern_type))

    def is_pattern_recognized(self, pattern_type: str) -> bool:
        """Whether a key matching ``pattern_type`` has reached the threshold."""
        return any(record.count >= self.threshold for record in self._matching(pattern_type))

    def validate_pattern(self, pattern_type: str, success: bool) -> None:
        """Record one application of the matching patterns; failures lower their confidence."""
        for record in self._matching(pattern_type):
            if success:
                record.successes += 1
            else:
                record.failures += 1

    def get_recognized_patterns(self, min_confidence: float | None = None) -> list[Experience]:
        """Each recognized pattern at or above ``min_confidence`` (default: the detector's)."""
        floor = self.min_confidence if min_confidence is None else min_confidence
        patterns = []
        for record in self._records.values():
            confidence = self._confidence(record)
            if record.count >= self.threshold and confidence >= floor:
                patterns.append(self._as_experience(record, confidence))
        return patterns

    def _as_experience(self, record: _PatternRecord, confidence: float) -> Experience:
        name = _shorten(record.kind)
        return Experience(
            experience_type=ExperienceType.PATTERN,
            context=f"Pattern '{name}' occurs frequently ({record.count} times)",
            outcome=(
                f"Look for '{name}' in similar contexts: this pattern has occurred "
                f"{record.count} times"
            ),
            confidence=confidence,
            timestamp=record.first_seen,
            metadata={
                "occurrences": record.count,
                "examples": [dict(example) for example in record.examples],
                "first_seen": record.first_seen.isoformat(),
                "pattern_key": record.key,
            },
        )


def _known_identity(pattern: Experience) -> tuple[str, str]:
    """How a known pattern names itself: ("key", ...), ("name", ...) or ("text", context)."""
    key = pattern.metadata.get("pattern_key") if isinstance(pattern.metadata, dict) else None
    if isinstance(key, str):
        return "key", key
    quoted = _QUOTED_NAME.search(pattern.context)
    if quoted:
        return "name", quoted.group(1)
    return "text", pattern.context.lower()


def _is_known(candidate: Experience, known: Iterable[tuple[str, str]]) -> bool:
    key = str(candidate.metadata["pattern_key"])
    quoted = _QUOTED_NAME.search(candidate.context)
    name = quoted.group(1) if quoted else key
    for how, value in known:
        if (how == "key" and value == key) or (how == "name" and value == name):
            return True
        if how == "text" and name.lower() in value:
            return True
    return False


def recognize_patterns(
    current_discoveries: Iterable[Mapping[str, Any]],
    known_patterns: Iterable[Experience] | None = None,
    threshold: int = 3,
) -> list[Experience]:
    """The patterns in ``current_discoveries`` that are not already known.

    A known pattern matches by its ``pattern_key`` metadata when it has one, else
    by the name quoted in its context (``Pattern 'name' ...``), else when the new
    pattern's name appears in its context.
    """
    detector = PatternDetector(threshold=threshold)
    for discovery in current_discoveries:
        detector.add_discovery(discovery)
    known = [_known_identity(pattern) for pattern in known_patterns or ()]
    return [p for p in detector.get_recognized_patterns() if not _is_known(p, known)]
