"""``w`` in the query box: one fact walked through every step of the agent's retrieval."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from memexplorer.app.screens.modal_dialog import DIALOG_CSS, ModalDialog
from memexplorer.app.screens.why_not_commands import WHY_NOT_COMMANDS
from memexplorer.memory.knowledge import KnowledgeNode
from memexplorer.memory.retrieval_explain import Step


def steps_text(profile: str, fact: KnowledgeNode, steps: list[Step], kept: bool) -> Text:
    """The walk as lines: ✓ for a step the fact passed, ✗ for the one that cut it."""
    text = Text()
    text.append(f"[{fact.concept}] ", style="bold")
    text.append(" ".join((fact.content or "").split()))
    text.append(f"\n{fact.node_id}\n\n", style="dim")
    verdict = "in the agent's result" if kept else "left out of the agent's result"
    text.append(f"{profile}: {verdict}\n\n", style="bold green" if kept else "bold yellow")
    for step in steps:
        mark, style = ("✗", "bold red") if step.cut else ("✓", "green")
        text.append(f" {mark} ", style=style)
        text.append(f"{step.step}: ", style="bold")
        text.append(f"{step.outcome}\n")
    return text


class WhyNotScreen(ModalDialog[None]):
    """The steps of the profile, applied to one fact; escape closes."""

    HELP = "Every step of the agent's retrieval, applied to this fact. **escape** closes."
    CSS_PATH = [DIALOG_CSS, "why_not_screen.tcss"]
    SCREEN_COMMANDS = WHY_NOT_COMMANDS

    def __init__(self, profile: str, fact: KnowledgeNode, steps: list[Step], kept: bool) -> None:
        super().__init__()
        self.profile = profile
        self.fact = fact
        self.steps = steps
        self.kept = kept

    def compose(self) -> ComposeResult:
        with VerticalScroll() as scroll:
            scroll.border_title = f"why {'this one' if self.kept else 'not this one'}?"
            yield Static(steps_text(self.profile, self.fact, self.steps, self.kept), id="steps")
