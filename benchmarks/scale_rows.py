"""The one interface between bench_scale.py and the modules that add rows to its table.

A module (``scale_app.py``, ``scale_query.py``, ...) defines
``measure(n: int, folder: Path) -> list[Row]``: ``n`` is the number of facts and
``folder`` the cached folder of ``scale_stores.scale_home(n)`` (``home/`` and
``export.json`` inside; never write there, copy first). bench_scale.py calls each
module's ``measure`` once per size and puts every returned Row in one table and
one plot, so a module needs to know nothing else about the harness.
``peak_of`` runs a command in a child process and returns its wall time and peak
resident memory, the way every row here is measured.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Row:
    """One measured operation at one size.

    ``tool`` is "memexplorer" or "reference" (amplihack-memory-lib);
    ``seconds`` wall time; ``peak_mb`` the child's peak resident memory in MB
    (None when not measured); ``target`` the acceptance target in words, if any
    ("< 60 s, < 600 MB"); ``note`` anything a reader must know (a failure's message);
    ``load`` the 1-minute load average as it started (``Measured.load``).
    """

    operation: str
    n: int
    tool: str
    seconds: float | None
    peak_mb: float | None = None
    target: str = ""
    note: str = ""
    #: The 1-minute load average when the operation started (the machine is shared).
    load: float | None = None
    #: CPU seconds (user + system) of the child, less sensitive to the load than wall time.
    cpu_seconds: float | None = None


@dataclass(frozen=True)
class Measured:
    load: float
    seconds: float
    peak_mb: float
    returncode: int
    stdout: str
    stderr: str
    cpu_seconds: float = 0.0


def peak_of(
    argv: list[str], env: dict[str, str] | None = None, cwd: Path | None = None
) -> Measured:
    """Run ``argv`` to its end; its wall time and peak RSS (ru_maxrss of that child alone).

    The child is reaped with ``os.wait4`` so the rusage is its own, not the
    maximum over every child this process ever had (``RUSAGE_CHILDREN``).
    """
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        load = os.getloadavg()[0]
        start = time.perf_counter()
        child = subprocess.Popen(
            argv, stdout=out, stderr=err, text=True, env={**os.environ, **(env or {})}, cwd=cwd
        )
        _, status, usage = os.wait4(child.pid, 0)
        seconds = time.perf_counter() - start
        child.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        cpu = usage.ru_utime + usage.ru_stime
        return Measured(
            load, seconds, usage.ru_maxrss / 1024, child.returncode, out.read(), err.read(), cpu
        )
