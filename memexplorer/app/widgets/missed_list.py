"""The facts memexplorer's ``ranked`` retrieval finds and the agent's profile left out,
each with the step of the agent's retrieval that cut it."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from memexplorer.app.literal import literal
from memexplorer.memory.knowledge import KnowledgeNode
from memexplorer.memory.retrieval_explain import Explanation
from memexplorer.operator.wording import counted

#: Characters of a fact's content shown (the node view has all of it).
CONTENT_WIDTH = 60


class MissedList(OptionList):
    """One line per missed fact (option id: the node id); ``w`` walks it through the steps."""

    HELP = (
        "Facts memexplorer's ranked retrieval returns that the agent's retrieval left "
        "out, each with the step that cut it. **w** walks the fact under the cursor "
        "through every step; **o** opens its node."
    )

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.border_title = "missed"
        self.nodes: dict[str, KnowledgeNode] = {}

    def show(self, explanation: Explanation | None) -> None:
        self.clear_options()
        self.nodes = {}
        if explanation is not None and explanation.note:
            self.border_title = literal(f"missed · {explanation.note}")
            return
        if explanation is None or explanation.profile == "ranked":
            self.border_title = "missed · ranked is the reference: nothing to compare"
            return
        missed = explanation.missed_as_dicts()
        found = counted(len(missed), "fact")
        self.border_title = f"found by ranked, not by {explanation.profile} · {found}"
        if not missed:
            note = f"Nothing missed: {explanation.profile} returned every fact ranked finds."
            self.add_option(Option(Text(note, style="dim"), disabled=True))
            return
        for (node, _), item in zip(explanation.missed, missed, strict=True):
            self.nodes[node.node_id] = node
            line = Text(f"[{node.concept}] ", style="bold")
            content = " ".join((node.content or "").split())
            clipped = (
                content if len(content) <= CONTENT_WIDTH else content[: CONTENT_WIDTH - 1] + "…"
            )
            line.append(clipped)
            line.append(f"\n   cut by {item['cut_by']}: ", style="yellow")
            line.append(item["reason"], style="dim")
            self.add_option(Option(line, id=node.node_id))
        if self.option_count:
            self.highlighted = 0

    def cursor_id(self) -> str | None:
        if self.highlighted is None or not self.option_count:
            return None
        return self.get_option_at_index(self.highlighted).id
