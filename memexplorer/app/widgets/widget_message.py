"""A widget's message whose ``control`` is the widget that posted it.

Textual matches an ``@on(Message, "#id")`` selector against the message's
``control``; a widget's messages name the widget first and take the property
from here instead of each writing it again.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Generic, TypeVar

from textual.dom import DOMNode
from textual.message import Message

__all__ = ["WidgetMessage"]

PosterT = TypeVar("PosterT", bound=DOMNode)


@dataclass
class WidgetMessage(Message, Generic[PosterT]):
    """Posted by ``widget``, which ``control`` (and so selectors) name."""

    widget: PosterT

    @property
    def control(self) -> PosterT:
        return self.widget
