"""Finding duplicates reports its progress and stops when asked: between chunks of
facts read, facts compared and pairs scored, promptly even on one big concept."""

from __future__ import annotations

import random
import threading
import time
from pathlib import Path

import pytest

from memexplorer.operator.duplicates import find_duplicates
from memexplorer.operator.duplicates_grouping import DuplicateFact, group_duplicates
from memexplorer.storage.progress import OperationCancelled, ProgressStep, TaskControl

from .planted import AGENT, build_graph_store

WORDS = [f"word{i}" for i in range(32)]


def _one_concept(count: int, seed: int = 5) -> list[DuplicateFact]:
    """Facts of one concept sharing most of their words: many candidate pairs."""
    rng = random.Random(seed)
    return [
        DuplicateFact(f"f{i}", "service config", " ".join(rng.sample(WORDS, 6)) + f" v{i % 50}",
                      (rng.choice(WORDS[:5]),), 0.8, f"2026-01-01T{i:08d}")
        for i in range(count)
    ]  # fmt: skip


def test_progress_counts_facts_read_then_compared(tmp_path: Path):
    store = build_graph_store(tmp_path / "kuzu_db")
    steps: list[ProgressStep] = []
    report = find_duplicates(store, AGENT, 0.7, TaskControl(steps.append))
    read = [s for s in steps if s.stage == "reading facts"]
    compared = [s for s in steps if s.stage.startswith("comparing facts")]
    # planted.py holds 7 facts of the agent, none superseded.
    assert read[-1].done == read[-1].total == 7 == report.facts
    assert compared[-1].done == compared[-1].total == 7 and compared[-1].unit == "facts"
    assert steps.index(read[-1]) < steps.index(compared[0])


def test_pairs_scored_are_reported():
    steps: list[ProgressStep] = []
    group_duplicates(_one_concept(600), 0.85, TaskControl(steps.append))
    last = steps[-1].stage
    assert last.startswith("comparing facts: ") and last.endswith(" pairs scored")
    assert int(last.split(": ")[1].split()[0].replace(",", "")) > 0


def test_a_cancel_before_the_start_stops_at_once(tmp_path: Path):
    store = build_graph_store(tmp_path / "kuzu_db")
    control = TaskControl()
    control.cancel()
    with pytest.raises(OperationCancelled, match="reading facts"):
        find_duplicates(store, AGENT, 0.7, control)


@pytest.mark.parametrize("threshold", [0.85, 0.3])  # pruned, and every pair scored
def test_a_cancel_on_one_big_concept_stops_within_half_a_second(threshold: float):
    facts = _one_concept(6000)
    started = threading.Event()
    reports: list[ProgressStep] = []

    def heard(step: ProgressStep) -> None:
        reports.append(step)
        if len(reports) >= 20:  # well into the comparing before the stop
            started.set()

    control = TaskControl(heard)
    outcome: list[BaseException | None] = []

    def run() -> None:
        try:
            group_duplicates(facts, threshold, control)
            outcome.append(None)
        except BaseException as exc:  # handed to the test thread
            outcome.append(exc)

    worker = threading.Thread(target=run)
    worker.start()
    assert started.wait(30)
    cancelled_at = time.perf_counter()
    control.cancel()
    worker.join(10)
    stopped_in = time.perf_counter() - cancelled_at
    assert isinstance(outcome[0], OperationCancelled)
    assert stopped_in < 0.5, stopped_in
