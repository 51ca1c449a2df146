"""PatternDetector, pattern keys, confidence and recognize_patterns (API.md §5)."""

from __future__ import annotations

from datetime import datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memexplorer.memory.experience import Experience, ExperienceType
from memexplorer.memory.pattern_recognition import (
    PatternDetector,
    calculate_pattern_confidence,
    extract_pattern_key,
    recognize_patterns,
)


def detector_with(kind: str, times: int, **kwargs: object) -> PatternDetector:
    detector = PatternDetector(**kwargs)  # type: ignore[arg-type]
    for i in range(times):
        detector.add_discovery({"type": kind, "file": f"module_{i}.py", "line": i})
    return detector


def only_pattern(detector: PatternDetector, **kwargs: object) -> Experience:
    [pattern] = detector.get_recognized_patterns(**kwargs)  # type: ignore[arg-type]
    return pattern


# ---------------------------------------------------------------------------
# Keys and confidence
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("discovery", "key"),
    [
        ({"type": "missing_example", "file": "tutorial_1.md"}, "tutorial_missing_example"),
        ({"type": "missing_example", "file": "tutorial_intro_2.md"}, "tutorial_missing_example"),
        ({"type": "missing_example", "file": "guide.md"}, "guide_missing_example"),
        ({"type": "broken_link", "link_type": "external", "file": "a.md"}, "broken_link_external"),
        ({"type": "broken_link", "link_type": "internal"}, "broken_link_internal"),
        ({"type": "sql_injection", "file": "api.py", "line": 42}, "sql_injection"),
        ({"type": "missing_test", "file": "module_a.py"}, "missing_test"),
        ({"type": "todo"}, "todo"),
        ({"file": "notes.txt"}, "unknown"),
        ({}, "unknown"),
        ({"file": "readme.md"}, "readme_unknown"),
    ],
)
def test_extract_pattern_key(discovery, key):
    assert extract_pattern_key(discovery) == key


def test_same_type_in_different_python_files_shares_a_key():
    keys = {extract_pattern_key({"type": "missing_test", "file": f"m_{c}.py"}) for c in "abc"}
    assert keys == {"missing_test"}


@pytest.mark.parametrize(
    ("occurrences", "expected"),
    [(0, 0.5), (1, 0.6), (2, 0.7), (3, 0.8), (4, 0.9), (5, 0.95), (1000, 0.95)],
)
def test_confidence_values(occurrences, expected):
    assert calculate_pattern_confidence(occurrences, 3) == pytest.approx(expected)


@given(st.integers(min_value=0, max_value=10_000), st.integers(min_value=1, max_value=50))
def test_confidence_is_exactly_the_reference_expression(occurrences, threshold):
    assert calculate_pattern_confidence(occurrences, threshold) == min(
        0.5 + occurrences * 0.1, 0.95
    )


# ---------------------------------------------------------------------------
# PatternDetector
# ---------------------------------------------------------------------------


def test_detector_defaults():
    detector = PatternDetector()
    assert (detector.threshold, detector.min_confidence, detector.max_examples) == (3, 0.5, 5)
    assert PatternDetector(threshold=7).threshold == 7


def test_counts_occurrences_by_type():
    detector = PatternDetector()
    for i in range(3):
        detector.add_discovery({"type": "missing_example", "file": f"tutorial_{i}.md"})
    assert detector.get_occurrence_count("missing_example") == 3
    assert detector.get_occurrence_count("tutorial_missing_example") == 3
    assert detector.get_occurrence_count("never_seen") == 0


def test_recognized_exactly_at_the_threshold():
    detector = detector_with("broken_link", 2)
    assert detector.is_pattern_recognized("broken_link") is False
    assert detector.get_recognized_patterns() == []
    detector.add_discovery({"type": "broken_link", "url": "http://example3.com"})
    assert detector.is_pattern_recognized("broken_link") is True
    assert detector.is_pattern_recognized("unknown_type") is False


def test_lookups_by_type_cover_every_key_containing_it():
    detector = PatternDetector()
    for link_type, times in (("external", 2), ("internal", 3)):
        for _ in range(times):
            detector.add_discovery({"type": "broken_link", "link_type": link_type})
    assert detector.get_occurrence_count("broken_link") == 5
    assert detector.get_occurrence_count("broken_link_external") == 2
    assert detector.is_pattern_recognized("broken_link") is True
    assert detector.is_pattern_recognized("broken_link_external") is False


def test_pattern_experience():
    detector = PatternDetector()
    for file in ("auth.py", "config.py", "api.py"):
        detector.add_discovery({"type": "hardcoded_credential", "file": file})
    pattern = only_pattern(detector)
    assert pattern.experience_type is ExperienceType.PATTERN
    assert pattern.context == "Pattern 'hardcoded_credential' occurs frequently (3 times)"
    assert len(pattern.outcome) > 20
    assert any(word in pattern.outcome.lower() for word in ("check", "look", "pattern", "occurs"))
    assert pattern.confidence == pytest.approx(0.8)


def test_confidence_grows_with_occurrences_and_is_capped():
    assert only_pattern(detector_with("a", 2, threshold=2)).confidence == pytest.approx(0.7)
    assert only_pattern(detector_with("a", 4, threshold=2)).confidence == pytest.approx(0.9)
    assert only_pattern(detector_with("a", 100, threshold=2)).confidence == pytest.approx(0.95)


def test_metadata():
    before = datetime.now()
    detector = detector_with("counted", 7)
    after = datetime.now()
    pattern = only_pattern(detector)
    assert pattern.metadata["occurrences"] == 7
    assert isinstance(pattern.metadata["occurrences"], int)
    assert pattern.metadata["examples"] == [
        {"type": "counted", "file": f"module_{i}.py", "line": i} for i in range(5)
    ]
    assert before <= datetime.fromisoformat(pattern.metadata["first_seen"]) <= after
    assert pattern.timestamp == datetime.fromisoformat(pattern.metadata["first_seen"])
    assert pattern.metadata["pattern_key"] == "counted"


def test_max_examples_is_honoured():
    pattern = only_pattern(detector_with("x", 6, max_examples=2))
    assert len(pattern.metadata["examples"]) == 2


def test_examples_are_copies_of_the_discoveries():
    detector = PatternDetector(threshold=1)
    discovery = {"type": "t", "file": "a.py"}
    detector.add_discovery(discovery)
    discovery["file"] = "changed.py"
    pattern = only_pattern(detector)
    assert pattern.metadata["examples"] == [{"type": "t", "file": "a.py"}]
    pattern.metadata["examples"][0]["file"] = "mutated"
    assert only_pattern(detector).metadata["examples"] == [{"type": "t", "file": "a.py"}]


def test_markdown_patterns_describe_the_type():
    detector = PatternDetector()
    for _ in range(3):
        detector.add_discovery({"type": "missing_example", "file": "tutorial.md"})
    pattern = only_pattern(detector)
    assert pattern.metadata["pattern_key"] == "tutorial_missing_example"
    assert "missing_example" in pattern.context
    assert pattern.context != "missing_example"


def test_min_confidence_filters():
    detector = detector_with("p", 3)
    assert only_pattern(detector).confidence == pytest.approx(0.8)
    assert detector.get_recognized_patterns(min_confidence=0.81) == []
    assert len(detector.get_recognized_patterns(min_confidence=0.8)) == 1
    strict = detector_with("p", 3, min_confidence=0.85)
    assert strict.get_recognized_patterns() == []
    assert len(strict.get_recognized_patterns(min_confidence=0.0)) == 1


def test_long_types_still_make_valid_experiences():
    pattern = only_pattern(detector_with("x" * 2000, 3))
    assert len(pattern.context) <= 500
    assert len(pattern.outcome) <= 1000


# ---------------------------------------------------------------------------
# Validation
# ---------------------------------------------------------------------------


def test_successes_raise_confidence():
    detector = detector_with("pattern_x", 3)
    for _ in range(5):
        detector.validate_pattern("pattern_x", success=True)
    assert only_pattern(detector).confidence == pytest.approx(0.8 * 1.1)


def test_failures_lower_confidence():
    detector = detector_with("pattern_y", 3)
    for _ in range(3):
        detector.validate_pattern("pattern_y", success=False)
    assert only_pattern(detector).confidence == pytest.approx(0.8 * 0.7)


def test_mixed_results_scale_by_the_success_rate():
    detector = detector_with("mixed", 3)
    detector.validate_pattern("mixed", success=True)
    detector.validate_pattern("mixed", success=False)
    assert only_pattern(detector).confidence == pytest.approx(0.8 * 0.9)


def test_many_failures_demote_the_pattern():
    detector = detector_with("unreliable_pattern", 3, min_confidence=0.5)
    for _ in range(10):
        detector.validate_pattern("unreliable_pattern", success=False)
    assert detector.get_recognized_patterns(min_confidence=0.5) == []
    assert detector.get_recognized_patterns() == []
    assert only_pattern(detector, min_confidence=0.0).confidence == pytest.approx(0.8 * 0.6)
    for _ in range(50):
        detector.validate_pattern("unreliable_pattern", success=False)
    assert only_pattern(detector, min_confidence=0.0).confidence == pytest.approx(0.8 * 0.5)


def test_validated_confidence_stays_capped():
    detector = detector_with("strong", 9)
    for _ in range(3):
        detector.validate_pattern("strong", success=True)
    assert only_pattern(detector).confidence == pytest.approx(0.95)


def test_validations_survive_new_discoveries():
    detector = detector_with("kept", 3)
    for _ in range(3):
        detector.validate_pattern("kept", success=False)
    detector.add_discovery({"type": "kept"})
    assert only_pattern(detector).confidence == pytest.approx(0.9 * 0.7)


def test_validating_an_unknown_type_changes_nothing():
    detector = detector_with("p", 3)
    detector.validate_pattern("other", success=False)
    assert only_pattern(detector).confidence == pytest.approx(0.8)


# ---------------------------------------------------------------------------
# recognize_patterns
# ---------------------------------------------------------------------------


def test_recognize_patterns_applies_the_threshold():
    discoveries = [{"type": "issue_a", "file": f"{i}.py"} for i in range(3)]
    discoveries += [{"type": "issue_b", "file": f"{i}.py"} for i in range(2)]
    [pattern] = recognize_patterns(current_discoveries=discoveries, threshold=3)
    assert "issue_a" in pattern.context
    assert recognize_patterns(discoveries, threshold=2)[1].context.startswith("Pattern 'issue_b'")


def test_recognize_several_patterns_in_one_pass():
    discoveries = (
        [{"type": "pattern_a"}] * 4 + [{"type": "pattern_b"}] * 3 + [{"type": "pattern_c"}] * 5
    )
    patterns = recognize_patterns(discoveries)
    assert len({p.context for p in patterns}) == 3
    assert [p.metadata["occurrences"] for p in patterns] == [4, 3, 5]


def test_nothing_to_recognize():
    assert recognize_patterns([{"type": "unique_1"}, {"type": "unique_2"}]) == []
    assert recognize_patterns([]) == []


def test_known_patterns_in_free_text_are_excluded():
    known = Experience(ExperienceType.PATTERN, "known_pattern_key", "Already recognized", 0.9)
    discoveries = [{"type": "known_pattern", "file": f"{i}.py"} for i in range(3)]
    assert recognize_patterns(discoveries, known_patterns=[known], threshold=3) == []
    assert len(recognize_patterns(discoveries, known_patterns=[], threshold=3)) == 1
    assert len(recognize_patterns(discoveries, known_patterns=None, threshold=3)) == 1


def test_known_patterns_by_quoted_name_are_excluded():
    known = Experience(
        ExperienceType.PATTERN, "Pattern 'flaky_test' occurs frequently (9 times)", "Look.", 0.9
    )
    discoveries = [{"type": "flaky_test"}] * 3 + [{"type": "slow_test"}] * 3
    [pattern] = recognize_patterns(discoveries, known_patterns=[known])
    assert pattern.context.startswith("Pattern 'slow_test'")


def test_known_patterns_by_key_keep_sibling_keys():
    discoveries = [{"type": "broken_link", "link_type": "external"}] * 3
    discoveries += [{"type": "broken_link", "link_type": "internal"}] * 3
    first_run = recognize_patterns(discoveries)
    assert len(first_run) == 2
    external = next(p for p in first_run if p.metadata["pattern_key"] == "broken_link_external")
    [remaining] = recognize_patterns(discoveries, known_patterns=[external])
    assert remaining.metadata["pattern_key"] == "broken_link_internal"
    assert recognize_patterns(discoveries, known_patterns=first_run) == []
