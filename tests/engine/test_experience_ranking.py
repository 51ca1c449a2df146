"""Seed 004's tag filter and relevance order for experience search, on both
backends; expected orders worked out by hand from the contexts' lengths and times."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

import pytest

from memexplorer.memory.experience import Experience, ExperienceType
from memexplorer.memory.store import ExperienceStore
from memexplorer.storage.exceptions import InvalidInputError

NOW = datetime.now().replace(microsecond=0)
#: (name, context, tags, hours ago); context lengths 18, 9, 30, 18, 12.
ROWS = (
    ("A", "deploy api gateway", ["deploy", "api"], 4),
    ("B", "deploy db", ["db"], 3),
    ("C", "deploy mongodb cluster quickly", ["mongodb"], 2),
    ("E", "deploy api gateway", ["api"], 1),
    ("D", "deploy cache", ["deploy"], 0),
)


@pytest.fixture(params=("sqlite", "kuzu"))
def store(request: pytest.FixtureRequest, tmp_path: Path):
    with ExperienceStore("ranker", storage_path=tmp_path, backend=request.param) as opened:
        for name, context, tags, hours in ROWS:
            opened.add(Experience(ExperienceType.SUCCESS, context, f"outcome {name}", 0.8,
                                  timestamp=NOW - timedelta(hours=hours), tags=tags))  # fmt: skip
        yield opened


def _names(found: list[Experience]) -> list[str]:
    return [e.outcome.removeprefix("outcome ") for e in found]


def test_recent_is_still_the_default(store):
    assert _names(store.search("deploy")) == ["D", "E", "C", "B", "A"]


def test_relevance_is_longest_context_then_newest(store):
    assert _names(store.search("deploy", order="relevance")) == ["C", "E", "A", "D", "B"]
    assert _names(store.search("deploy", order="relevance", limit=2)) == ["C", "E"]
    assert _names(store.search("", order="relevance", limit=3)) == ["C", "E", "A"]


def test_tags_match_whole_tags_only(store):
    assert _names(store.search("deploy", tags=["db"])) == ["B"]  # not "mongodb"
    assert _names(store.search("deploy", tags=["api"])) == ["E", "A"]
    assert _names(store.search("deploy", tags=["deploy", "api"])) == ["A"]
    assert _names(store.search("gateway", tags=["api"], order="relevance")) == ["E", "A"]
    assert store.search("deploy", tags=["nope"]) == []
    assert _names(store.search("", tags=["deploy"], limit=1)) == ["D"]


@pytest.mark.parametrize(("options", "message"), [
    ({"order": "oldest"}, "order must be one of"),
    ({"tags": "db"}, "tags must be a list"),
    ({"tags": [""]}, "tags must be a list"),
])  # fmt: skip
def test_bad_options_are_refused(store, options, message):
    with pytest.raises(InvalidInputError, match=message):
        store.search("deploy", **options)
