"""A radio button whose state reads without colour: ● when chosen, ○ when not.

Textual draws every radio button with the same ● and tells them apart by colour
only; on a monochrome terminal, or to an operator who cannot tell the colours
apart, the chosen export format could not be seen.
"""

from __future__ import annotations

from textual.content import Content
from textual.widgets import RadioButton

__all__ = ["MarkedRadioButton"]


class MarkedRadioButton(RadioButton):
    """A RadioButton whose inner mark is its state, colour aside."""

    CHOSEN, NOT_CHOSEN = "●", "○"

    @property
    def _button(self) -> Content:
        self.BUTTON_INNER = self.CHOSEN if self.value else self.NOT_CHOSEN
        return super()._button
