"""App tests: the app built from its factory on the reference stores, at a fixed size."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from contextlib import suppress
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.worker import WorkerFailed, WorkerState

SIZE = (120, 36)
#: Snapshots show the opened path, so they open a copy at a path that never changes.
SNAPSHOT_ROOT = Path("/tmp/memexplorer-snapshot-stores")


async def settle(pilot: Pilot) -> None:
    """Let every worker finish and the screen catch up (never sleep).

    Repeats until a round starts no new worker: a handler of one worker's answer
    may start the next (the tree lists stores, then summarises each), and a fixed
    number of rounds left slow machines one stage behind.
    """
    for _ in range(20):
        await pilot.pause()
        with suppress(WorkerFailed):  # the app reports it; tests assert on that
            await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        if not any(worker.is_running or worker.state == WorkerState.PENDING
                   for worker in pilot.app.workers):  # fmt: skip
            return
    raise AssertionError("workers kept starting for 20 rounds: the app never settled")


@pytest.fixture
def home(reference_stores: Path) -> Path:
    return reference_stores / "home" / ".amplihack"


def _listing(root: Path) -> dict[str, tuple[int, int]]:
    """Every file under ``root`` with its size and modification time."""
    return {
        str(path.relative_to(root)): (path.lstat().st_size, path.lstat().st_mtime_ns)
        for path in root.rglob("*")
    }


@pytest.fixture(scope="session")
def _snapshot_copy(_pristine_stores: Path) -> dict[str, tuple[int, int]]:
    shutil.rmtree(SNAPSHOT_ROOT, ignore_errors=True)
    shutil.copytree(_pristine_stores, SNAPSHOT_ROOT, symlinks=True)
    return _listing(SNAPSHOT_ROOT)


@pytest.fixture
def snapshot_home(_pristine_stores: Path, _snapshot_copy: dict[str, tuple[int, int]]) -> Path:
    """The copy at the fixed path, as unpacked: copied again whenever an earlier test
    left anything behind in it (a backup folder, a changed store), which would show."""
    if _listing(SNAPSHOT_ROOT) != _snapshot_copy:
        shutil.rmtree(SNAPSHOT_ROOT)
        shutil.copytree(_pristine_stores, SNAPSHOT_ROOT, symlinks=True)
        _snapshot_copy.clear()
        _snapshot_copy.update(_listing(SNAPSHOT_ROOT))
    return SNAPSHOT_ROOT / "home" / ".amplihack"


def keys(*names: str) -> Callable[[Pilot], object]:
    """A run_before for snapshots: press keys, settling after each."""

    async def run(pilot: Pilot) -> None:
        await settle(pilot)
        for name in names:
            await pilot.press(name)
            await settle(pilot)

    return run
