"""A screen's keys from its commands (:mod:`memexplorer.app.command`), written once.

A screen or dialog class that names its ``SCREEN_COMMANDS`` is given ``BINDINGS``
from them, so the footer, the palette and the help cannot disagree with the keys.
"""

from __future__ import annotations

from typing import Any, ClassVar

from textual.binding import BindingType

from memexplorer.app.command import Commands

__all__ = ["KeysFromCommands"]


class KeysFromCommands:
    """Mixed in before Textual's Screen, whose ``__init_subclass__`` (run after this
    one's) merges the class's ``BINDINGS`` with its bases'."""

    SCREEN_COMMANDS: ClassVar[Commands | None] = None
    BINDINGS: ClassVar[list[BindingType]] = []

    def __init_subclass__(cls, **kwargs: Any) -> None:
        own = cls.__dict__.get("SCREEN_COMMANDS")
        if own is not None:
            if "BINDINGS" in cls.__dict__:
                raise TypeError(f"{cls.__name__}: its BINDINGS come from its SCREEN_COMMANDS")
            cls.BINDINGS = own.bindings()
        super().__init_subclass__(**kwargs)
