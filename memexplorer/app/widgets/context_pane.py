"""The text an agent's prompt would get for a retrieval: ``to_llm_context()``."""

from __future__ import annotations

from typing import Any

from textual.widgets import TextArea


class ContextPane(TextArea):
    """Read-only and selectable; the screen's copy command copies all of it."""

    HELP = (
        "What `to_llm_context()` gives an LLM for this retrieval, by confidence or in "
        "chronological order. Select text with the mouse or shift+arrows; **c** copies it all."
    )

    def __init__(self, **kwargs: Any) -> None:
        super().__init__("", read_only=True, soft_wrap=True, show_cursor=False, **kwargs)
        self.border_title = "LLM context"

    def show(self, text: str, chronological: bool) -> None:
        self.load_text(text)
        order = "chronological" if chronological else "by confidence"
        self.border_title = f"LLM context · {order}"
