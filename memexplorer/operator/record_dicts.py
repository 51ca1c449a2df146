"""Records (dataclasses) as the plain dicts that JSON output and reports show.

Most records show their fields in the order they are declared, a few of them
another way (a tuple as a list, nested records as dicts). Building the dict from
the fields, rather than naming each field again in every ``to_dict``, keeps a
field added to a record from being left out of its JSON. Values are not copied
(unlike :func:`dataclasses.asdict`): the dict is read once, to be shown or dumped.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import fields
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

__all__ = ["FieldsRecord", "field_dict", "values_of"]


def values_of(record: object, names: Iterable[str]) -> dict[str, Any]:
    """The record's attributes ``names``, in that order."""
    return {name: getattr(record, name) for name in names}


def field_dict(
    record: DataclassInstance, *, leave_out: Collection[str] = (), **shown: Any
) -> dict[str, Any]:
    """The record's fields in declaration order, but those in ``leave_out``; a value
    in ``shown`` takes the place of its field's (each names a field)."""
    values = values_of(record, (f.name for f in fields(record) if f.name not in leave_out))
    unknown = shown.keys() - values.keys()
    if unknown:
        raise TypeError(f"{type(record).__name__} has no field {', '.join(sorted(unknown))}")
    values.update(shown)
    return values


class FieldsRecord:
    """A dataclass whose dict is its fields, each as it is."""

    def to_dict(self: DataclassInstance) -> dict[str, Any]:
        return field_dict(self)
