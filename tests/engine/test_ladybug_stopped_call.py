"""A LadybugDB call stopped by ctrl+c (KeyboardInterrupt while the answer is awaited).

The worker still answers the stopped request later; before, the store's close read
that answer as its own (waiting for the whole slow query first: ``memexplorer stats``
hung, or read a frame from the middle of an answer and died of MemoryError), and the
worker went back to the idle pool one answer behind.
"""

from __future__ import annotations

import os
import signal
import threading
from importlib.util import find_spec
from pathlib import Path

import pytest

from memexplorer.storage import worker_process
from memexplorer.storage.graph_open import open_graph_store

pytestmark = pytest.mark.skipif(
    find_spec("ladybug") is None and not os.environ.get("CI"),
    reason="needs the ladybug extra: pip install 'memexplorer[ladybug]'",
)

#: 3,000 facts cubed: runs far longer than the test waits (1,500 took 5 s).
SLOW = "MATCH (a:Fact), (b:Fact), (c:Fact) WHERE a.n + b.n + c.n = -7 RETURN count(*)"


@pytest.fixture
def lbug(tmp_path: Path) -> Path:
    path = tmp_path / "ladybug_db"
    with open_graph_store(path, read_only=False, create="ladybug") as store:
        store.execute("CREATE NODE TABLE Fact(id STRING, n INT64, PRIMARY KEY(id))")
        store.execute("UNWIND range(0, 2999) AS i CREATE (:Fact {id: 'f' + string(i), n: i})")
    return path


def _stop_with_ctrl_c(call, after: float) -> None:
    """Run ``call`` until a KeyboardInterrupt raised by a timer signal stops it."""

    def ctrl_c(signum, frame):
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGALRM, ctrl_c)
    try:
        signal.setitimer(signal.ITIMER_REAL, after)
        with pytest.raises(KeyboardInterrupt):
            call()
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def test_close_after_a_stopped_query_neither_waits_nor_reads_its_answer(lbug: Path):
    store = open_graph_store(lbug)
    worker = store._worker
    _stop_with_ctrl_c(lambda: store.rows(SLOW), after=0.3)
    closing = threading.Thread(target=store.close, daemon=True)
    closing.start()
    closing.join(timeout=20)
    assert not closing.is_alive(), "close waited for the stopped query's answer"
    assert worker not in worker_process._IDLE  # never lent to the next store
    assert worker.process.poll() is not None  # and gone
    with open_graph_store(lbug) as again:
        assert again.scalar("MATCH (f:Fact) RETURN count(f)") == 3000
        assert again.scalar("RETURN 41 + 1") == 42
