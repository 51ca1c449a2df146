"""What a clean selection matches, checked before any store opens (clean_selection.py).

Every expectation is written out by hand from the glob rules: ``*`` any run of
characters, ``?`` exactly one, everything else literal, brackets refused.
"""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta

import pytest

from memexplorer.operator.clean_selection import BadSelectionError, Selection, compile_glob
from memexplorer.storage.exceptions import InvalidInputError

NOW = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("pattern", "matching", "not_matching"),
    [
        ("sess-?", ["sess-a", "sess-1"], ["sess-", "sess-ab", "xsess-a"]),
        ("sess-*", ["sess-", "sess-alpha", "sess-a\nb"], ["ses-a", "xsess-a", "Sess-a"]),
        ("*-bot", ["triage-bot", "-bot"], ["triage-bots", "bot"]),
        ("a.b", ["a.b"], ["axb", "a.bc"]),  # a dot is a dot
        ("a+b(c)", ["a+b(c)"], ["aab(c)", "a+bc"]),
        ("x^y$", ["x^y$"], ["xy"]),
        ("a\\d", ["a\\d"], ["a1"]),
        ("??", ["ab", "\n\n"], ["a", "abc"]),
        ("service *", ["service ownership", "service "], ["services x"]),
    ],
)
def test_glob_matches_whole_values_with_two_wildcards(pattern, matching, not_matching):
    selection = Selection(pattern)
    assert not selection.matches_all
    for value in matching:
        assert selection.matches(value), value
        assert compile_glob(pattern).fullmatch(value), value
    for value in not_matching:
        assert not selection.matches(value), value


@pytest.mark.parametrize("pattern", ["*", "**", "***"])
def test_stars_alone_match_every_row_even_without_the_column(pattern):
    selection = Selection(pattern)
    assert selection.matches_all
    for value in ("anything", "", None, 3, b"bytes"):
        assert selection.matches(value)


@pytest.mark.parametrize("pattern", ["?", "*?", "a*", "* ", " *", "x"])
def test_other_patterns_match_only_strings_they_fit(pattern):
    selection = Selection(pattern)
    assert not selection.matches_all
    assert not selection.matches(None)
    assert not selection.matches(7)


@pytest.mark.parametrize(
    ("pattern", "message"),
    [
        ("", "The pattern is empty; use '*' to match everything"),
        ("   ", "The pattern is empty; use '*' to match everything"),
        ("a" * 257, "The pattern is longer than 256 characters"),
        ("a\x00b", "The pattern contains control characters"),
        ("a\x1fb", "The pattern contains control characters"),
        ("a\x7fb", "The pattern contains control characters"),
        ("sess-[ab]", "The pattern 'sess-[ab]' contains [ ]: only * and ? are wildcards here"),
        ("{a,b}", "The pattern '{a,b}' contains { }: only * and ? are wildcards here"),
        ("x]", "The pattern 'x]' contains ]: only * and ? are wildcards here"),
    ],
)
def test_bad_patterns_are_refused_with_the_reason(pattern, message):
    with pytest.raises(BadSelectionError) as raised:
        Selection(pattern)
    assert message in str(raised.value)
    assert isinstance(raised.value, InvalidInputError)
    assert "Use * and ? as wildcards" in raised.value.hint


def test_the_longest_pattern_allowed_is_256_characters():
    assert Selection("a" * 256).matches("a" * 256)
    assert Selection("a b").matches("a b")  # a space is an ordinary character


@pytest.mark.parametrize("days", [-1, -0.001, math.inf, -math.inf, math.nan])
def test_older_than_must_be_a_finite_count_of_days(days):
    with pytest.raises(BadSelectionError, match="--older-than must be 0 or more days"):
        Selection("*", older_than_days=days)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"ids": ("a", " ")}, "An empty id was given with --ids"),
        ({"ids": ("",)}, "An empty id was given with --ids"),
        ({"agent": ""}, "The agent name is empty"),
        ({"agent": "  "}, "The agent name is empty"),
    ],
)
def test_empty_ids_and_agents_are_refused(kwargs, message):
    with pytest.raises(BadSelectionError, match=message):
        Selection("*", **kwargs)


def test_no_age_asked_keeps_every_row():
    selection = Selection("*")
    assert selection.cutoff(NOW) is None
    assert selection.is_old(None, None)
    assert selection.is_old("not a time", None)


@pytest.mark.parametrize(
    ("days", "value", "old"),
    [
        (1, "2026-04-30T11:59:59+00:00", True),  # a second before the cutoff
        (1, "2026-04-30T12:00:00+00:00", False),  # exactly at the cutoff: not older
        (1, "2026-04-30T12:00:01", False),  # naive: taken as UTC
        (0.5, "2026-05-01T00:00:00Z", False),
        (0.5, "2026-04-30T23:59:59Z", True),
        (0, "2026-05-01T11:59:59+00:00", True),
        (0, "2026-05-01T12:00:00+00:00", False),
        (1, datetime(2026, 4, 1, tzinfo=UTC).timestamp(), True),  # epoch seconds
        (1, "unreadable", False),  # an unreadable time is never old
        (1, None, False),
    ],
)
def test_age_is_strictly_before_the_cutoff(days, value, old):
    selection = Selection("*", older_than_days=days)
    cutoff = selection.cutoff(NOW)
    assert cutoff == NOW - timedelta(days=days)
    assert selection.is_old(value, cutoff) is old


def test_to_dict_records_every_condition():
    selection = Selection("sess-*", agent="a", table="T", older_than_days=2.5, ids=("x", "y"))
    assert selection.to_dict() == {
        "pattern": "sess-*", "agent": "a", "table": "T",
        "older_than_days": 2.5, "ids": ["x", "y"],
    }  # fmt: skip
    assert Selection().to_dict() == {
        "pattern": "*", "agent": None, "table": None, "older_than_days": None, "ids": [],
    }  # fmt: skip


def test_selections_compare_by_their_conditions():
    assert Selection("a*", agent="x") == Selection("a*", agent="x")
    assert Selection("a*") != Selection("b*")
    assert hash(Selection("a*")) == hash(Selection("a*"))
    with pytest.raises(AttributeError):
        Selection("a*").pattern = "b*"  # frozen


def test_the_compiled_glob_stays_out_of_the_repr():
    # The repr shows in messages and test ids: the conditions, not the regex.
    assert repr(Selection("a*", agent="x")) == (
        "Selection(pattern='a*', agent='x', table=None, older_than_days=None, ids=())"
    )
