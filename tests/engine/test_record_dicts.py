"""Records as dicts (record_dicts.py): fields in order, some shown another way.

Expected dicts are written out by hand from the records below.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from memexplorer.operator.record_dicts import FieldsRecord, field_dict, values_of


@dataclass(frozen=True)
class _Move(FieldsRecord):
    concept: str
    steps: tuple[str, ...]
    extra: dict[str, Any] = field(default_factory=dict)
    _cache: str = field(default="", repr=False)


def test_fields_in_declaration_order_each_as_it_is() -> None:
    extra = {"k": [1, 2]}
    move = _Move("colour", ("a", "b"), extra, "x")
    shown = move.to_dict()
    assert list(shown.items()) == [
        ("concept", "colour"),
        ("steps", ("a", "b")),
        ("extra", {"k": [1, 2]}),
        ("_cache", "x"),
    ]
    assert shown["extra"] is extra  # not copied, unlike dataclasses.asdict


def test_a_shown_value_takes_its_fields_place_and_left_out_fields_go() -> None:
    move = _Move("colour", ("a", "b"))
    shown = field_dict(move, leave_out=("_cache",), steps=["a", "b"])
    assert list(shown.items()) == [("concept", "colour"), ("steps", ["a", "b"]), ("extra", {})]


def test_a_shown_value_must_name_a_field() -> None:
    with pytest.raises(TypeError, match="_Move has no field concepts, step"):
        field_dict(_Move("colour", ()), step=[], concepts=1)
    with pytest.raises(TypeError, match="_Move has no field _cache"):
        field_dict(_Move("colour", ()), leave_out=("_cache",), _cache="")


def test_values_of_keeps_the_order_asked_for() -> None:
    move = _Move("colour", ("a",))
    assert list(values_of(move, ("steps", "concept")).items()) == [
        ("steps", ("a",)),
        ("concept", "colour"),
    ]
