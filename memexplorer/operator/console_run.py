"""A console query that can be stopped for real, with a memory ceiling.

A read-only graph store's query runs in a child process
(:mod:`memexplorer.storage.console_child`, in storage because it imports the
engine's driver) that opens the store read-only beside the app's own handle;
:meth:`ConsoleRun.stop` ends that process at once, whatever the database is doing,
and the memory it used goes back to the system. A watcher ends it too when it grows past the
ceiling. Queries on a store in writing mode (whose lock the app holds) and on
SQLite stores run in the app's process, stopped by the database's interrupt.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

from memexplorer.operator.browse import GraphBrowser, StoreBrowser
from memexplorer.storage import console_child
from memexplorer.storage.graph_store import QueryError, translate_query_error

__all__ = ["DEFAULT_MEMORY_MB", "ConsoleStopped", "QueryProcess"]

#: How much memory a console query's process may take before it is ended.
DEFAULT_MEMORY_MB = 2048
#: Run by path: it imports only the standard library before the engine's own module.
_CHILD = Path(console_child.__file__)
_WATCH_EVERY_S = 0.05
_PAGE = os.sysconf("SC_PAGE_SIZE")


class ConsoleStopped(QueryError):
    """The operator stopped the query; nothing is wrong with the store."""

    title = "Query stopped"


def _resident_mb(pid: int) -> float:
    """The process's resident memory in MB (0 once it has gone)."""
    try:
        with open(f"/proc/{pid}/statm") as statm:
            return int(statm.read().split()[1]) * _PAGE / 1e6
    except (OSError, IndexError, ValueError):
        return 0.0


def _reap(process: subprocess.Popen[bytes]) -> None:
    process.wait()
    if process.stderr is not None:
        process.stderr.close()


def runs_in_a_process(browser: StoreBrowser) -> bool:
    """Whether a console query on ``browser`` runs in a child process: graph stores
    open read-only (a store in writing mode is locked by the app's own handle)."""
    return isinstance(browser, GraphBrowser) and browser.graph.read_only


class QueryProcess:
    """One read-only query in a child process; :meth:`stop` ends it from any thread.

    The child starts at once and opens the store while the operator is still
    typing: made ahead of time, it answers without the start-up wait (~0.3 s)."""

    def __init__(self, browser: GraphBrowser, memory_mb: int = DEFAULT_MEMORY_MB) -> None:
        self.graph = browser.graph
        self.memory_mb = memory_mb
        self._stopped = threading.Event()
        self._too_big = threading.Event()
        self._lock = threading.Lock()
        self._used = False
        store = str(getattr(self.graph, "opened_path", self.graph.path))
        # a store read by a cached release: the child runs under that release's Python
        python = getattr(self.graph, "python", sys.executable)
        self._process: subprocess.Popen[bytes] | None = subprocess.Popen(
            [python, "-P", str(_CHILD), self.graph.engine, store],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,  # a terminal's ctrl+c goes to the app, not here
        )
        threading.Thread(target=self._watch, args=(self._process,), daemon=True).start()

    @property
    def fresh(self) -> bool:
        """Not used yet and still running: ready for a query."""
        return not self._used and self._process is not None and self._process.poll() is None

    def stop(self) -> None:
        """End the query now: the process is killed, the caller gets ConsoleStopped."""
        self._stopped.set()
        self._kill()

    def discard(self) -> None:
        """End a child that was started ahead of time and is no longer wanted (the
        console closes, or its store switches to writing, which its handle blocks)."""
        self.stop()
        if self._process is not None and not self._used:
            # Killed: it goes at once; should it not, the system reaps it later.
            with contextlib.suppress(subprocess.TimeoutExpired):
                self._process.wait(timeout=5)

    def _kill(self) -> None:
        with self._lock:
            process = self._process
        if process is not None and process.poll() is None:
            process.kill()

    def _watch(self, process: subprocess.Popen[bytes]) -> None:
        while process.poll() is None and not self._stopped.is_set():
            if _resident_mb(process.pid) > self.memory_mb:
                self._too_big.set()
                self._kill()
                return
            time.sleep(_WATCH_EVERY_S)

    def rows(self, text: str, cap: int, timeout_s: float) -> tuple[list[str], list[Any], bool]:
        """Column names, at most ``cap`` rows and whether more were left, as
        ``GraphStore.rows_capped`` gives them; ConsoleStopped if stopped."""
        request = {"query": text, "cap": cap, "timeout_ms": int(timeout_s * 1000)}
        with self._lock:
            if self._stopped.is_set():
                raise ConsoleStopped("The query was stopped before it started.")
            if self._used:
                raise RuntimeError("a QueryProcess answers one query")  # a caller's bug
            self._used = True
        process = self._process
        assert process is not None
        answer = self._exchange(process, pickle.dumps(request))
        return self._answer(process, answer, timeout_s)

    @staticmethod
    def _exchange(process: subprocess.Popen[bytes], request: bytes) -> Any:
        """Send the request; read the one answer as soon as it is written (the child
        may take a moment more to exit); None when the child ended without one."""
        assert process.stdin is not None and process.stdout is not None
        try:
            process.stdin.write(request)
            process.stdin.close()
            return pickle.load(process.stdout)
        except (BrokenPipeError, EOFError, pickle.UnpicklingError):
            return None
        finally:
            process.stdout.close()

    def _answer(
        self, process: subprocess.Popen[bytes], answer: Any, timeout_s: float
    ) -> tuple[list[str], list[Any], bool]:
        if self._stopped.is_set() or self._too_big.is_set():
            _reap(process)  # killed: it is gone in a moment, its memory with it
        if self._stopped.is_set():
            raise ConsoleStopped("The query was stopped; its process has ended.")
        if self._too_big.is_set():
            raise QueryError(
                f"The query used more than {self.memory_mb:,} MB and was stopped.",
                hint="Add a LIMIT, or count with count(*) instead of returning rows.",
            )
        if answer is None:
            code = process.wait()
            err = process.stderr.read() if process.stderr is not None else b""
            how = f"signal {-code}" if code < 0 else f"exit status {code}"
            if code == -signal.SIGKILL:
                how = "it was killed (out of memory?)"
            last = err.decode(errors="replace").strip().splitlines()[-1:] or ["no message"]
            raise QueryError(f"The query's process ended without an answer: {how}; {last[0]}")
        # The child exits on its own after answering; reap it without waiting here.
        threading.Thread(target=_reap, args=(process,), daemon=True).start()
        if answer[0] == "error":
            message = answer[1]
            if "Interrupted" in message or "timeout" in message.lower():
                raise QueryError(f"The query ran past {timeout_s:g} s and was stopped.")
            raise translate_query_error(self.graph.path, message, self.graph.engine)
        _, names, rows, more = answer
        return names, rows, more
