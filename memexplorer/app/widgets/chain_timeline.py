"""One temporal chain as a timeline, oldest at the top: each step's change, why it
changed, and what an operator should notice (forks, cycles, gaps, lowered confidence).

Each step is one option, so the cursor moves step by step and enter opens the fact.
The text depends on the chain alone (no clock, no terminal width), so it snapshots.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from memexplorer.app.widgets.widget_message import WidgetMessage
from memexplorer.operator.chains import ChainStep, TemporalChain

_SOURCE = {"transitioned_to": "TRANSITIONED_TO", "numbers": "changed numbers"}


def _short(memory_id: str) -> str:
    return memory_id[:8] + "…" if len(memory_id) > 9 else memory_id


def step_flags(step: ChainStep) -> list[str]:
    """What is unusual about a step, in words."""
    flags = []
    if step.forked:
        flags.append(f"⑂ fork: replaced by {len(step.superseders)} newer facts")
    if step.in_cycle:
        flags.append("↻ in a cycle of SUPERSEDES edges")
    if step.gap_before:
        missing = "turn" if step.gap_before == 1 else "turns"
        flags.append(f"⋯ gap: {step.gap_before} {missing} missing before this one")
    if step.confidence_lowered:
        flags.append(f"▼ confidence lowered from {step.confidence_before:.2f}")
    return flags


def step_text(step: ChainStep, next_id: str | None = None) -> Text:
    """A step: its change, content, why, flags and id, with the timeline's line down
    the left to the next step (``next_id``; None for the last). What replaced the
    step is named when it is not the next step (forks, cycles)."""
    last = next_id is None
    rail = "  " if last else "│ "
    text = Text()
    text.append("● " if step.current else "○ ", style="bold green" if step.current else "dim")
    text.append(f"{step.position}. ", style="bold")
    if step.turn:
        text.append(f"turn {step.turn}  ", style="dim")
    if step.previous_value:
        text.append(step.previous_value, style="red")
        text.append(" → ")
    text.append(step.value or "(no value)", style="bold green" if step.current else "bold")
    if step.value_from:
        text.append(f"  ({_SOURCE.get(step.value_from, step.value_from)})", style="dim italic")
    if step.current:
        text.append("  current", style="bold reverse green")
    lines: list[tuple[str, str]] = [(step.content, "")]
    if step.reason or step.temporal_delta:
        lines.append((" · ".join(p for p in (step.reason, step.temporal_delta) if p), "dim"))
    lines += [(flag, "bold yellow") for flag in step_flags(step)]
    where = f"{_short(step.memory_id)} · {step.created_at[:19].replace('T', ' ')}"
    where += f" · confidence {step.confidence:.2f}"
    if step.superseded_by and step.superseded_by != next_id:
        where += f" · replaced by {_short(step.superseded_by)}"
    lines.append((where, "dim"))
    for line, style in lines:
        text.append(f"\n{rail}", style="dim")
        text.append(line, style=style)
    if not last:
        text.append("\n│", style="dim")
    return text


class ChainTimeline(OptionList):
    """The steps of one chain; enter (or o) opens the fact of the step under the cursor."""

    HELP = (
        "A chain of facts about one thing, oldest at the top. Each step shows the old and "
        "new value, the SUPERSEDES reason and temporal delta, and its confidence; ● marks "
        "the current value. Flags: ⑂ fork, ↻ cycle, ⋯ gap in the turns, ▼ lowered "
        "confidence. **enter** opens the step's fact."
    )

    #: The chain shown (None: nothing).
    chain: TemporalChain | None = None

    @dataclass
    class StepChosen(WidgetMessage["ChainTimeline"]):
        step: ChainStep

    def show(self, chain: TemporalChain | None, at: str | None = None) -> None:
        """Show a chain (None: nothing), the cursor on the step of fact ``at`` if given,
        else on its newest current step."""
        self.chain = chain
        self.clear_options()
        if chain is None or not chain.steps:
            return
        ids: list[str | None] = [step.memory_id for step in chain.steps[1:]]
        self.add_options(
            [
                Option(step_text(step, next_id), id=step.memory_id)
                for step, next_id in zip(chain.steps, [*ids, None], strict=True)
            ]
        )
        ids = [step.memory_id for step in chain.steps]
        if at in ids:
            self.highlighted = ids.index(at)
        else:
            self.move_to_current()

    @property
    def step(self) -> ChainStep | None:
        if self.chain is None or self.highlighted is None:
            return None
        return self.chain.steps[self.highlighted]

    def move_to_current(self) -> None:
        if self.chain is None or not self.chain.steps:
            return
        current = [i for i, step in enumerate(self.chain.steps) if step.current]
        self.highlighted = current[-1] if current else len(self.chain.steps) - 1

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if self.chain is not None:
            self.post_message(self.StepChosen(self, self.chain.steps[event.option_index]))
