"""App tests: the app built from its factory on the reference stores, at a fixed size."""

from __future__ import annotations

import shutil
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import suppress
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.worker import Worker, WorkerFailed, WorkerState
from textual.worker_manager import WorkerManager

SIZE = (120, 36)
#: Snapshots show the opened path. Each run opens its own copy, at a path exactly as
#: long as this one (so nothing moves on screen), and the snapshot shows this one.
SHOWN_STORES = "/tmp/memexplorer-snapshot-stores"
#: Private paths of this run -> the fixed paths snapshots show in their place.
_SHOWN: dict[str, str] = {}


#: Workers that ended in an error during the running test (see _record_failed_workers).
_FAILED: list[Worker] = []


@pytest.fixture(autouse=True)
def _record_failed_workers(monkeypatch: pytest.MonkeyPatch) -> None:
    """Keep every worker that fails: the manager forgets finished workers at once,
    so a failure between two looks would otherwise go unseen."""
    forget = WorkerManager._remove_worker

    def remember_failures(manager: WorkerManager, worker: Worker) -> None:
        if worker.state == WorkerState.ERROR:
            _FAILED.append(worker)
        forget(manager, worker)

    _FAILED.clear()
    monkeypatch.setattr(WorkerManager, "_remove_worker", remember_failures)


def _check_failures(expected: tuple[type[BaseException], ...]) -> None:
    unexpected = [w for w in _FAILED if not isinstance(w.error, expected)]
    _FAILED.clear()
    if unexpected:
        worker = unexpected[0]
        raise AssertionError(
            f"worker {worker.name!r} failed with {worker.error!r}; a test that means "
            "the app to meet this error passes settle(pilot, failures=(ItsType,))"
        ) from worker.error


def _steady_cursors(pilot: Pilot) -> None:
    """Cursors shown steadily: a blink's phase when a snapshot is taken is timing, not
    the picture (the export dialog's path lost its cursor once on a loaded machine)."""
    for editor in pilot.app.screen.query("Input, TextArea"):
        editor.cursor_blink = False


async def settle(pilot: Pilot, failures: tuple[type[BaseException], ...] = ()) -> None:
    """Let every worker finish and the screen catch up (never sleep).

    Repeats until two rounds in a row start no new worker: a handler of one
    worker's answer may start the next (the tree lists stores, then summarises
    each), and a fixed number of rounds left slow machines one stage behind. A worker that failed
    fails the test, unless its error is one of ``failures``, which the test
    expects the app to report (and checks that it does).
    """
    quiet_rounds = 0
    for _ in range(20):
        await pilot.pause()
        with suppress(WorkerFailed):  # recorded by _record_failed_workers, checked below
            await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        _check_failures(failures)
        busy = any(worker.is_running or worker.state == WorkerState.PENDING
                   for worker in pilot.app.workers)  # fmt: skip
        # Two quiet rounds in a row: a screen pushed by the last key may mount (and
        # start its worker) only after the first one, on a loaded machine.
        quiet_rounds = 0 if busy else quiet_rounds + 1
        if quiet_rounds == 2:
            _steady_cursors(pilot)
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


def private_root(shown: str) -> Iterator[Path]:
    """A new folder for this run only, as long a path as ``shown``, which snapshots
    show in its place; removed afterwards. Two runs on one machine never share it."""
    base = "/tmp"
    prefix = "memexplorer-snap-".ljust(len(shown) - len(base) - 1 - 8, "x")  # mkdtemp adds 8
    root = Path(tempfile.mkdtemp(prefix=prefix, dir=base))
    assert len(str(root)) == len(shown), (root, shown)
    _SHOWN[str(root)] = shown
    try:
        yield root
    finally:
        del _SHOWN[str(root)]
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def snap_compare(snap_compare, monkeypatch: pytest.MonkeyPatch):
    """The plugin's snap_compare, with this run's private paths shown as the fixed ones."""
    import textual._doc

    take = textual._doc.take_svg_screenshot

    def shown(*args, **kwargs) -> str:
        svg = take(*args, **kwargs)
        for private, fixed in _SHOWN.items():
            svg = svg.replace(private, fixed)
        return svg

    monkeypatch.setattr(textual._doc, "take_svg_screenshot", shown)
    return snap_compare


@pytest.fixture(scope="session")
def snapshot_root() -> Iterator[Path]:
    """This run's folder for the snapshot copy of the reference stores."""
    yield from private_root(SHOWN_STORES)


@pytest.fixture(scope="session")
def _snapshot_copy(_pristine_stores: Path, snapshot_root: Path) -> dict[str, tuple[int, int]]:
    shutil.copytree(_pristine_stores, snapshot_root, symlinks=True, dirs_exist_ok=True)
    return _listing(snapshot_root)


@pytest.fixture
def snapshot_home(
    _pristine_stores: Path, snapshot_root: Path, _snapshot_copy: dict[str, tuple[int, int]]
) -> Path:
    """The run's copy, as unpacked: copied again whenever an earlier test left
    anything behind in it (a backup folder, a changed store), which would show."""
    if _listing(snapshot_root) != _snapshot_copy:
        shutil.rmtree(snapshot_root)
        shutil.copytree(_pristine_stores, snapshot_root, symlinks=True)
        _snapshot_copy.clear()
        _snapshot_copy.update(_listing(snapshot_root))
    return snapshot_root / "home" / ".amplihack"


async def settle_until(
    pilot: Pilot, condition: Callable[[], bool], what: str, seconds: float = 60.0
) -> None:
    """Settle until ``condition`` holds: for what the app does after a refresh (a table
    scrolls its cursor into view then), which no worker round waits for."""
    deadline = time.monotonic() + seconds
    await settle(pilot)
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} did not happen within {seconds:.0f} s")
        await pilot.pause(0.05)
        pilot.app.screen.refresh()


def keys(*names: str, failures: tuple[type[BaseException], ...] = ()) -> Callable[[Pilot], object]:
    """A run_before for snapshots: press keys, settling after each (see settle)."""

    async def run(pilot: Pilot) -> None:
        await settle(pilot, failures)
        for name in names:
            await pilot.press(name)
            await settle(pilot, failures)

    return run
