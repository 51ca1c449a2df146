"""Which Python runs an engine worker, and the worker processes themselves.

A graph store that kuzu cannot share a process with (LadybugDB), or that
needs another release than memexplorer's own (see :mod:`.engine_cache`), is
served by :mod:`.ladybug_worker` in a process of its own. A
:class:`WorkerRuntime` says which interpreter runs it and which package it
loads: the pinned ladybug beside memexplorer, or a cached kuzu or ladybug
release in its own virtualenv. Idle workers are kept per runtime for the
next store: starting one costs about 0.3 s, a call about 0.1 ms.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import pickle
import struct
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memexplorer.storage.ladybug_worker import HELLO, read_frame, write_frame
from memexplorer.storage.storage_versions import KUZU_RELEASE, LADYBUG_PINNED

__all__ = [
    "PINNED_LADYBUG",
    "Worker",
    "WorkerGone",
    "WorkerRuntime",
    "cached_worker",
    "give_back",
    "stop_idle_workers",
    "take_worker",
]

_WORKER_FILE = Path(__file__).with_name("ladybug_worker.py")
_MAX_IDLE = 2
_PINNED = {"kuzu": KUZU_RELEASE, "ladybug": LADYBUG_PINNED}


@dataclass(frozen=True)
class WorkerRuntime:
    """The interpreter a worker runs under and the engine package it loads.
    ``release`` is None for the release installed beside memexplorer."""

    package: str
    python: str
    release: str | None = None

    @property
    def label(self) -> str:
        """``"ladybug 0.17.1"``: the release, for messages and ``stats``."""
        return f"{self.package} {self.release or _PINNED[self.package]}"

    @property
    def pinned(self) -> bool:
        return self.release is None


#: The ladybug of the ``memexplorer[ladybug]`` extra, in memexplorer's own Python.
PINNED_LADYBUG = WorkerRuntime("ladybug", sys.executable)
_IDLE: list[Worker] = []
_IDLE_LOCK = threading.Lock()


class WorkerGone(Exception):
    """The worker's pipes closed: it exited or was killed."""


class Worker:
    """One worker process: its request and answer pipes and its control pipe."""

    def __init__(self, runtime: WorkerRuntime = PINNED_LADYBUG) -> None:
        self.runtime = runtime
        control_read, self.control = os.pipe()
        # Kept open for the worker's life: its last words explain a crash.
        self.stderr = tempfile.TemporaryFile()  # noqa: SIM115
        try:
            self.process = subprocess.Popen(
                [runtime.python, "-P", str(_WORKER_FILE), str(control_read), runtime.package],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=self.stderr,
                pass_fds=(control_read,),
                start_new_session=True,
            )
        finally:
            os.close(control_read)
        self.owner = os.getpid()
        self.number = 0
        self.running = 0
        #: A call was stopped before its whole answer was read: the rest of that
        #: answer would be read as the next call's, so the worker takes no more.
        self.broken = False
        frame = read_frame(self.process.stdout)  # type: ignore[arg-type]
        self.hello: tuple[str, int] | None = None
        self.import_error = ""
        if frame is None:
            self.import_error = self.last_words() or "the worker stopped while starting"
        elif frame[0] == HELLO:
            self.hello = pickle.loads(frame[1])
        else:
            self.import_error = pickle.loads(frame[1])[1]
        if self.hello is None:
            self.stop()

    def alive(self) -> bool:
        return self.owner == os.getpid() and not self.broken and self.process.poll() is None

    def call(self, op: str, *args: Any) -> tuple[int, bytes]:
        """Send one request and wait for its answer (callers serialise calls). A
        call stopped on the way (ctrl+c) interrupts the worker's query and leaves
        the worker broken: every later call raises WorkerGone."""
        if self.broken:
            raise WorkerGone
        self.number += 1
        request = pickle.dumps((self.number, op, args), pickle.HIGHEST_PROTOCOL)
        try:
            write_frame(self.process.stdin, 0, request)  # type: ignore[arg-type]
            self.running = self.number
            frame = read_frame(self.process.stdout)  # type: ignore[arg-type]
        except (BrokenPipeError, ValueError, OSError):
            frame = None
        except BaseException:
            self.interrupt()
            self.broken = True
            raise
        finally:
            self.running = 0
        if frame is None:
            raise WorkerGone
        return frame

    def interrupt(self) -> None:
        """Ask the worker to stop the request now running (any thread)."""
        number = self.running
        if number:
            with contextlib.suppress(OSError):
                os.write(self.control, struct.pack("<Q", number))

    def last_words(self) -> str:
        """How the worker ended: its exit status and last line on stderr."""
        try:
            code = self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            code = None
        self.stderr.seek(0)
        lines = self.stderr.read().decode("utf-8", "replace").strip().splitlines()
        status = f"killed by signal {-code}" if code and code < 0 else f"exit code {code}"
        return f"{status}; {lines[-1]}" if lines else status

    def stop(self) -> None:
        """Close the request pipe (the worker closes its database and exits)."""
        for stream in (self.process.stdin, self.process.stdout):
            with contextlib.suppress(OSError):
                stream.close()  # type: ignore[union-attr]
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        os.close(self.control)
        self.stderr.close()


def take_worker(runtime: WorkerRuntime = PINNED_LADYBUG) -> Worker:
    """An idle worker of ``runtime``, or a new one."""
    with _IDLE_LOCK:
        for worker in list(_IDLE):
            if worker.runtime != runtime:
                continue
            _IDLE.remove(worker)
            if worker.alive():
                return worker
            worker.stop()
    return Worker(runtime)


def give_back(worker: Worker) -> None:
    with _IDLE_LOCK:
        if worker.alive() and len(_IDLE) < _MAX_IDLE:
            _IDLE.append(worker)
            return
    worker.stop()


@atexit.register
def stop_idle_workers() -> None:
    """Stop every idle worker this process started."""
    with _IDLE_LOCK:
        idle, _IDLE[:] = list(_IDLE), []
    for worker in idle:
        if worker.owner == os.getpid():
            worker.stop()


def cached_worker(
    path: Path, runtime: WorkerRuntime, storage_version: int | None, read_only: bool
) -> Worker:
    """A started worker of a cached release, checked against the store it will read:
    cached releases only read, and only the storage version they write."""
    from memexplorer.storage.engine_cache import add_command
    from memexplorer.storage.exceptions import UnsupportedEngineError

    name = f"{runtime.package}=={runtime.release}"
    if not read_only:
        raise UnsupportedEngineError(
            path,
            f"This store is read through the cached {runtime.label}; memexplorer only "
            "reads stores of another release than its own",
            hint="Export it, then import the export into a store of memexplorer's release.",
        )
    worker = take_worker(runtime)
    if worker.hello is None:
        raise UnsupportedEngineError(
            path,
            f"The cached {runtime.label} does not start ({worker.import_error})",
            hint=f"Reinstall it: memexplorer engines remove {name}, then "
            f"{add_command(runtime.package, runtime.release or '')}.",
        )
    if worker.hello != (runtime.release, storage_version):
        found = worker.hello
        give_back(worker)
        raise UnsupportedEngineError(
            path,
            f"The cached {runtime.label} loaded {runtime.package} {found[0]} (storage "
            f"version {found[1]}), not the release this store needs (storage version "
            f"{storage_version})",
            hint=f"Reinstall it: memexplorer engines remove {name}, then "
            f"{add_command(runtime.package, runtime.release or '')}.",
        )
    return worker
