"""Realistic flat session stores of each backend, written with the engine's own writers.

Three sessions, three agents, four memory types per backend, expired rows (one
session holds nothing live), a row that expires tomorrow (live), and a
duplicate attempt. EXPECTED says what every reader must report.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path

import pytest

from memexplorer.memory.flat_model import utc_now
from memexplorer.memory.flat_store import open_flat_store

#: Memory types per backend; index 1 and 3 take expires_at in both.
TYPES = {
    "sqlite": ("learning", "context", "decision", "conversation"),
    "graph-db": ("semantic", "episodic", "procedural", "working"),
}
FILES = {"sqlite": "memory.db", "graph-db": "memory_graph.db"}

# (session, agent, content, type index, importance, expiry: None | "past" | "future")
ROWS = (
    ("sess-alpha", "architect", "Queues need back-pressure at the ingest edge", 0, 9, None),
    ("sess-alpha", "architect", "Chose sqlite for the local cache", 2, 6, None),
    ("sess-alpha", "builder", "Retry budget is three attempts", 0, 4, None),
    ("sess-alpha", "builder", "Scratch note about a flaky test", 1, 2, "past"),
    ("sess-beta", "builder", "Run migrations before deploys", 2, 7, None),
    ("sess-beta", "reviewer", "Reviewed PR 91 for the memory seam", 1, None, None),
    ("sess-beta", "reviewer", "Current goal: finish the audit", 3, 5, "future"),
    ("sess-beta", "reviewer", "Stale goal from yesterday", 3, 3, "past"),
    ("sess-gamma", "reviewer", "Only an expired context line", 1, 1, "past"),
)


@dataclass
class FlatFixture:
    backend: str
    home: Path
    path: Path
    ids: dict[str, str] = field(default_factory=dict)
    duplicate: str | None = "not attempted"

    @property
    def live_rows(self) -> list[tuple]:
        return [row for row in ROWS if row[5] != "past"]

    @property
    def expired_ids(self) -> set[str]:
        return {self.ids[row[2]] for row in ROWS if row[5] == "past"}

    def agent_counts(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for row in self.live_rows:
            counts[row[1]] = counts.get(row[1], 0) + 1
        return dict(sorted(counts.items()))

    def session_counts(self) -> dict[str, int]:
        counts = {row[0]: 0 for row in ROWS}
        for row in self.live_rows:
            counts[row[0]] += 1
        return counts


def build_flat_store(backend: str, home: Path) -> FlatFixture:
    path = home / FILES[backend]
    fixture = FlatFixture(backend, home, path)
    now = utc_now()
    expiry = {None: None, "past": now - timedelta(hours=2), "future": now + timedelta(days=1)}
    with open_flat_store((backend, path), read_only=False) as store:
        for session, agent, content, kind, importance, expires in ROWS:
            memory_id = store.store_session_learning(
                session, agent, content,
                title=content[:30], memory_type=TYPES[backend][kind], importance=importance,
                confidence=0.8 if kind == 0 else None, tags=["fixture"],
                expires_at=expiry[expires],
            )  # fmt: skip
            assert memory_id is not None
            fixture.ids[content] = memory_id
        first = ROWS[0]
        fixture.duplicate = store.store_session_learning(
            first[0], first[1], first[2], memory_type=TYPES[backend][first[3]]
        )
    return fixture


@pytest.fixture(scope="session")
def _pristine_flat(tmp_path_factory: pytest.TempPathFactory) -> dict[str, FlatFixture]:
    built = {}
    for backend in FILES:
        home = tmp_path_factory.mktemp(f"flat-{backend}") / ".amplihack"
        built[backend] = build_flat_store(backend, home)
    return built


def copy_fixture(pristine: FlatFixture, target: Path) -> FlatFixture:
    """A private copy of a built store under ``target`` (a fresh home)."""
    shutil.copytree(pristine.home, target, symlinks=True)
    return FlatFixture(
        pristine.backend, target, target / pristine.path.name, pristine.ids, pristine.duplicate
    )


@pytest.fixture(params=sorted(FILES))
def flat_store(request, _pristine_flat, tmp_path) -> FlatFixture:
    """A private copy of the flat store of each backend (the test runs once per backend)."""
    return copy_fixture(_pristine_flat[request.param], tmp_path / ".amplihack")
