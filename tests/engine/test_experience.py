"""Experience and ExperienceType, as API.md §3 states them."""

from __future__ import annotations

import math
import re
from datetime import UTC, datetime, timedelta, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memexplorer.memory.experience import Experience, ExperienceType
from memexplorer.storage.exceptions import InvalidExperienceError, MemoryError

ID_FORMAT = re.compile(r"^exp_\d{8}_\d{6}_[0-9a-f]{6}$")
NOON = datetime(2026, 2, 14, 12, 30, 45, 123456)


def make(**overrides: object) -> Experience:
    fields: dict[str, object] = {
        "experience_type": ExperienceType.SUCCESS,
        "context": "deployed the billing service",
        "outcome": "rollout finished without errors",
        "confidence": 0.8,
        "timestamp": NOON,
    }
    fields.update(overrides)
    return Experience(**fields)  # type: ignore[arg-type]


def test_experience_type_has_exactly_four_members():
    assert [(t.name, t.value) for t in ExperienceType] == [
        ("SUCCESS", "success"),
        ("FAILURE", "failure"),
        ("PATTERN", "pattern"),
        ("INSIGHT", "insight"),
    ]
    assert ExperienceType("pattern") is ExperienceType.PATTERN


def test_experience_type_rejects_unknown_value():
    with pytest.raises(ValueError):
        ExperienceType("bad")


def test_defaults():
    before = datetime.now()
    exp = Experience(ExperienceType.INSIGHT, "context", "outcome", 0.5)
    after = datetime.now()
    assert before <= exp.timestamp <= after
    assert exp.metadata == {}
    assert exp.tags == []
    assert ID_FORMAT.match(exp.experience_id)


def test_explicit_none_gets_the_defaults():
    exp = make(timestamp=None, experience_id=None, metadata=None, tags=None)
    assert isinstance(exp.timestamp, datetime)
    assert ID_FORMAT.match(exp.experience_id)
    assert exp.metadata == {}
    assert exp.tags == []


def test_defaults_are_not_shared_between_instances():
    first, second = make(), make(context="other")
    first.metadata["k"] = 1
    first.tags.append("t")
    assert second.metadata == {}
    assert second.tags == []


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"experience_type": "success"}, "experience_type must be ExperienceType enum"),
        ({"experience_type": None}, "experience_type must be ExperienceType enum"),
        ({"timestamp": "2026-02-14"}, "timestamp must be datetime object"),
        ({"timestamp": 1_700_000_000}, "timestamp must be datetime object"),
        ({"context": 42}, "context must be a string"),
        ({"outcome": None}, "outcome must be a string"),
        ({"confidence": "high"}, "confidence must be a number"),
        ({"confidence": True}, "confidence must be a number"),
    ],
)
def test_type_errors(overrides, message):
    with pytest.raises(TypeError, match=f"^{message}$"):
        make(**overrides)


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"context": ""}, "context cannot be empty"),
        ({"context": "  \n\t"}, "context cannot be empty"),
        ({"context": "x" * 501}, "context exceeds 500 characters"),
        ({"outcome": ""}, "outcome cannot be empty"),
        ({"outcome": "   "}, "outcome cannot be empty"),
        ({"outcome": "y" * 1001}, "outcome exceeds 1000 characters"),
        ({"confidence": -0.1}, "confidence must be between 0.0 and 1.0"),
        ({"confidence": 1.1}, "confidence must be between 0.0 and 1.0"),
        ({"confidence": -1e-12}, "confidence must be between 0.0 and 1.0"),
        ({"confidence": math.nan}, "confidence must be between 0.0 and 1.0"),
    ],
)
def test_value_errors_belong_to_the_engine_family(overrides, message):
    with pytest.raises(InvalidExperienceError, match=f"^{message}$") as caught:
        make(**overrides)
    assert isinstance(caught.value, ValueError)
    assert isinstance(caught.value, MemoryError)


@pytest.mark.parametrize(
    "overrides",
    [
        {"context": "x" * 500},
        {"outcome": "y" * 1000},
        {"context": "a"},
        {"confidence": 0.0},
        {"confidence": 1.0},
        {"confidence": 1},
    ],
)
def test_boundaries_are_accepted(overrides):
    exp = make(**overrides)
    for name, value in overrides.items():
        assert getattr(exp, name) == value


def test_id_format_uses_the_timestamp():
    exp = make()
    assert ID_FORMAT.match(exp.experience_id)
    assert exp.experience_id.startswith("exp_20260214_123045_")


@pytest.mark.parametrize(
    ("context", "outcome", "when", "expected"),
    [
        (
            "rollback of CI pipeline",
            "rollback of CI pipeline completed in 39 minutes without errors",
            datetime(2026, 7, 1, 9, 5),
            "exp_20260701_090500_324137",
        ),
        (
            "failover drill of prod-eu-1",
            "failover drill of prod-eu-1 completed in 13 minutes without errors",
            datetime(2026, 8, 27, 20, 17),
            "exp_20260827_201700_c51044",
        ),
    ],
)
def test_ids_match_those_the_reference_library_wrote(context, outcome, when, expected):
    # Rows of the reference stores' experiences.db (timestamps stored as UTC epoch seconds).
    exp = Experience(ExperienceType.SUCCESS, context, outcome, 0.8, timestamp=when)
    assert exp.experience_id == expected


def test_ids_differ_when_content_or_time_differs():
    base = make()
    assert make(context="another context").experience_id != base.experience_id
    assert make(outcome="another outcome").experience_id != base.experience_id
    later = make(timestamp=NOON + timedelta(microseconds=1))
    assert later.experience_id != base.experience_id
    assert make().experience_id == base.experience_id


def test_explicit_id_is_kept():
    assert make(experience_id="exp_custom").experience_id == "exp_custom"


def test_equality_and_hash_use_the_id_only():
    first = make()
    second = make(context="different", outcome="different", confidence=0.1)
    assert first != second
    second.experience_id = first.experience_id
    assert first == second
    assert hash(first) == hash(second)
    assert len({first, second}) == 1
    assert first != first.experience_id
    assert first != first.to_dict()


def test_metadata_and_tags_are_mutable():
    exp = make(metadata={"count": 1}, tags=["initial", "initial"])
    exp.metadata["count"] = 2
    exp.metadata["nested"] = {"files": [1, 2]}
    exp.tags.remove("initial")
    exp.tags.append("added")
    assert exp.metadata == {"count": 2, "nested": {"files": [1, 2]}}
    assert exp.tags == ["initial", "added"]


def test_to_dict():
    exp = make(
        experience_type=ExperienceType.PATTERN,
        confidence=0.92,
        metadata={"count": 5, "nested": {"a": [1]}},
        tags=["pattern", "important"],
    )
    data = exp.to_dict()
    assert data == {
        "experience_id": exp.experience_id,
        "experience_type": "pattern",
        "context": "deployed the billing service",
        "outcome": "rollout finished without errors",
        "confidence": 0.92,
        "timestamp": "2026-02-14T12:30:45.123456",
        "metadata": {"count": 5, "nested": {"a": [1]}},
        "tags": ["pattern", "important"],
    }
    data["metadata"]["nested"]["a"].append(2)
    data["tags"].append("x")
    assert exp.metadata == {"count": 5, "nested": {"a": [1]}}
    assert exp.tags == ["pattern", "important"]


def test_from_dict_accepts_iso_strings():
    exp = Experience.from_dict(
        {
            "experience_id": "exp_20260214_102315_a7f3c9",
            "experience_type": "success",
            "context": "Test context",
            "outcome": "Test outcome",
            "confidence": 0.85,
            "timestamp": "2026-02-14T10:23:15",
            "metadata": {"key": "value"},
            "tags": ["tag1", "tag2"],
        }
    )
    assert exp.experience_id == "exp_20260214_102315_a7f3c9"
    assert exp.experience_type is ExperienceType.SUCCESS
    assert exp.timestamp == datetime(2026, 2, 14, 10, 23, 15)
    assert exp.metadata == {"key": "value"}
    assert exp.tags == ["tag1", "tag2"]


def test_from_dict_fills_optional_fields():
    exp = Experience.from_dict(
        {"experience_type": ExperienceType.FAILURE, "context": "c", "outcome": "o",
         "confidence": 0.2, "timestamp": NOON}
    )  # fmt: skip
    assert exp.experience_type is ExperienceType.FAILURE
    assert exp.experience_id == make(context="c", outcome="o").experience_id
    assert exp.metadata == {}
    assert exp.tags == []


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"experience_type": "bad"}, "unknown experience_type 'bad'"),
        ({"timestamp": "yesterday"}, "timestamp 'yesterday' is not ISO 8601"),
        ({"context": None, "outcome": None}, None),
    ],
)
def test_from_dict_rejects_bad_data(change, message):
    data = make().to_dict()
    for key, value in change.items():
        if value is None:
            del data[key]
        else:
            data[key] = value
    with pytest.raises(InvalidExperienceError) as caught:
        Experience.from_dict(data)
    expected = message or "experience data lacks context, outcome"
    assert str(caught.value) == expected


def test_from_dict_still_validates():
    data = make().to_dict()
    data["confidence"] = 2.0
    with pytest.raises(InvalidExperienceError, match="confidence must be between"):
        Experience.from_dict(data)


texts = st.text(min_size=1, max_size=40).filter(str.strip)


@given(
    kind=st.sampled_from(ExperienceType),
    context=texts,
    outcome=texts,
    confidence=st.floats(min_value=0.0, max_value=1.0),
    when=st.datetimes(timezones=st.sampled_from([None, UTC, timezone(timedelta(hours=5))])),
    metadata=st.dictionaries(st.text(max_size=5), st.integers() | st.text(max_size=5), max_size=3),
    tags=st.lists(st.text(max_size=8), max_size=4),
)
def test_round_trip_keeps_every_field(kind, context, outcome, confidence, when, metadata, tags):
    original = Experience(kind, context, outcome, confidence, when, None, metadata, tags)
    restored = Experience.from_dict(original.to_dict())
    assert ID_FORMAT.match(original.experience_id)
    assert restored.to_dict() == original.to_dict()
    assert restored.timestamp == original.timestamp
    assert restored.timestamp.utcoffset() == original.timestamp.utcoffset()
