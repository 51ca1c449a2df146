"""Read many stores at once: forked children read some while this process reads the rest.

Why: ``memexplorer stats`` on a home spends most of its time inside the engines,
opening stores one after another on one core (kuzu reads some 1,800 pages to
open a cognitive store). Threads do not pay: kuzu lets go of the GIL while it
works, but every return into Python then waits to get it back (measured slower,
benchmarks/README.md). A forked child has an interpreter of its own.

What keeps this as trustworthy as reading the stores one after another:

- it forks only a process with one thread, as ``/proc/self/task`` counts them
  (kuzu's own threads included): a child gets a copy of every lock, held or not,
  but only the thread that forked. Elsewhere, with no idle core or with one
  item, it reads here, in order;
- a child sends back only what it read. What it could not read (an error, a child
  that died, a reply cut short) is read again here, so an error and its message
  are the plain loop's own;
- a stop (``KeyboardInterrupt``) stops the children before it goes on, as a
  ctrl+c stops this process: each gets one ``KeyboardInterrupt`` and lets go of
  what it holds (a store's private copy in the temporary folder), and is killed
  only if it has not ended within :data:`STOP_SECONDS`;
- it is for reads only: a child's write would pass by this process's writing gate.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import signal
import time
from collections.abc import Callable, Sequence
from typing import Generic, TypeVar

__all__ = ["MAX_WORKERS", "READERS_VARIABLE", "read_in_parallel", "workers_here"]

T = TypeVar("T")
R = TypeVar("R")

#: Processes at most, this one included, whatever the cores: each opens stores of its own.
MAX_WORKERS = 8


#: How long a stopped child may take to let go of what it holds before it is killed.
STOP_SECONDS = 10.0

#: Sets how many processes read (1: this one alone), instead of the cores idle now.
READERS_VARIABLE = "MEMEXPLORER_READERS"


def workers_here(items: int) -> int:
    """How many processes would read ``items`` items now: 1 unless this process may
    fork, else as many as ``MEMEXPLORER_READERS`` says or as cores are idle (a child
    on a busy core only slows the whole: measured at one core busy, 0.27 -> 0.32 s)."""
    if items < 2 or not hasattr(os, "fork") or not _one_thread():
        return 1
    return max(1, min(_readers(), items, MAX_WORKERS))


def _readers() -> int:
    asked = os.environ.get(READERS_VARIABLE, "").strip()
    if asked.isdigit() and int(asked) > 0:
        return int(asked)
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    try:  # the tasks runnable right now, this one among them
        with open("/proc/loadavg", encoding="ascii") as loadavg:
            running = int(loadavg.read().split()[3].split("/")[0])
    except (OSError, ValueError, IndexError):
        return 1
    return cores - max(0, running - 1)


def read_in_parallel(
    read: Callable[[T], R],
    items: Sequence[T],
    *,
    weight: Callable[[T], float] | None = None,
    catch: tuple[type[Exception], ...] = (Exception,),
    meanwhile: Callable[[], object] | None = None,
) -> list[R | Exception]:
    """``read(item)`` for each item, in the items' order, an exception of ``catch``
    standing in place of its result; any other exception is raised. ``weight``
    guesses an item's cost, to share the items out evenly (the heaviest first,
    each to the least loaded process). ``meanwhile`` is called once, here, when
    the children have started and before this process reads its own share: the
    caller's work that needs no item (loading what it draws the results with)."""
    shares = _shares(items, weight, workers_here(len(items)))
    children: list[_Child[R]] = []
    results: dict[int, R | Exception] = {}
    try:
        for share in shares[1:]:
            children.append(_Child.start(read, items, share))
        if meanwhile is not None:
            meanwhile()
        for index in shares[0]:
            results[index] = _attempt(read, items[index], catch)
        for child in children:
            results.update(child.collect())
    except BaseException:
        _stop(children)
        raise
    return [
        results[index] if index in results else _attempt(read, items[index], catch)
        for index in range(len(items))
    ]


def _attempt(read: Callable[[T], R], item: T, catch: tuple[type[Exception], ...]) -> R | Exception:
    try:
        return read(item)
    except catch as exc:
        return exc


def _one_thread() -> bool:
    try:
        return len(os.listdir("/proc/self/task")) == 1
    except OSError:  # no /proc: the threads cannot be counted, so no fork
        return False


def _shares(
    items: Sequence[T], weight: Callable[[T], float] | None, workers: int
) -> list[list[int]]:
    """The items' indexes in ``workers`` shares, the lightest first (this process's)."""
    if workers < 2:
        return [list(range(len(items)))]
    costs = [float(weight(item)) if weight else 1.0 for item in items]
    loads = [0.0] * workers
    shares: list[list[int]] = [[] for _ in range(workers)]
    for index in sorted(range(len(items)), key=lambda i: -costs[i]):
        lightest = loads.index(min(loads))
        shares[lightest].append(index)
        loads[lightest] += costs[index]
    order = sorted(range(workers), key=lambda w: loads[w])
    return [sorted(shares[w]) for w in order]


class _Child(Generic[R]):
    """A forked process reading a share of the items and sending back what it read."""

    def __init__(self, pid: int, reply: int) -> None:
        self._pid = pid
        self._reply = reply
        self._reaped = False

    @classmethod
    def start(cls, read: Callable[[T], R], items: Sequence[T], share: list[int]) -> _Child[R]:
        reply, write_end = os.pipe()
        # A ctrl+c waits until the child is inside _child_reads, which always exits.
        mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        try:
            pid = os.fork()
            if pid == 0:  # the child: never returns
                _child_reads(read, items, share, write_end, reply, mask)
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        os.close(write_end)
        return cls(pid, reply)

    def collect(self) -> dict[int, R]:
        """What the child read; nothing when it failed, so the caller reads it all."""
        reply, self._reply = self._reply, -1  # closed below, whatever happens
        with open(reply, "rb") as pipe:
            data = pipe.read()
        _, status = os.waitpid(self._pid, 0)
        self._reaped = True  # its pid may be another process's from now on
        if status != 0:
            return {}
        try:
            replies: dict[int, bytes] = pickle.loads(data)  # our own child's, through our own pipe
        except Exception:  # cut short: the child died while it wrote
            return {}
        found: dict[int, R] = {}
        for index, reply in replies.items():
            try:
                found[index] = pickle.loads(reply)
            except Exception:  # read again by the caller
                continue
        return found

    def interrupt(self) -> None:
        """Stop the child as ctrl+c would (it lets go of what it holds)."""
        if not self._reaped:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self._pid, signal.SIGINT)

    def ended(self, deadline: float) -> None:
        """Wait for the child to end until ``deadline`` (time.monotonic), then kill it."""
        if not self._reaped:
            with contextlib.suppress(ProcessLookupError, ChildProcessError):
                while os.waitpid(self._pid, os.WNOHANG) == (0, 0):
                    if time.monotonic() > deadline:
                        os.kill(self._pid, signal.SIGKILL)
                        os.waitpid(self._pid, 0)
                        break
                    time.sleep(0.01)
            self._reaped = True
        if self._reply >= 0:  # not yet handed to collect()
            os.close(self._reply)
            self._reply = -1


def _stop(children: list[_Child[R]]) -> None:
    """Stop every child at once, then wait for them all within one STOP_SECONDS."""
    for child in children:
        child.interrupt()
    deadline = time.monotonic() + STOP_SECONDS
    for child in children:
        child.ended(deadline)


def _stop_once(signum: int, frame: object) -> None:
    """A child's ctrl+c: one KeyboardInterrupt, the terminal's or the parent's, so a
    second one cannot cut short what the first one is undoing."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    raise KeyboardInterrupt


def _child_reads(
    read: Callable[[T], R],
    items: Sequence[T],
    share: list[int],
    out: int,
    parents_end: int,
    mask: set[signal.Signals],
) -> None:
    """The child's whole life: read its share, send what it read, leave at once
    (``os._exit``: no atexit handler of the parent's and no flush of its buffers).
    SIGINT is blocked until its handler is in place (``mask``: the parent's own)."""
    status = 1
    try:
        signal.signal(signal.SIGINT, _stop_once)
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        os.close(parents_end)
        done: dict[int, bytes] = {}
        for index in share:
            try:
                done[index] = pickle.dumps(read(items[index]), pickle.HIGHEST_PROTOCOL)
            except Exception:  # read again by the parent, which raises it there
                continue
        with open(out, "wb") as pipe:
            pipe.write(pickle.dumps(done, pickle.HIGHEST_PROTOCOL))
        status = 0
    finally:
        os._exit(status)
