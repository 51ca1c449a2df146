"""ctrl+c during `memexplorer duplicates` stops the search with a message saying where
it was, exit code 130, and no traceback. The command runs in a child process (a
real SIGINT), its search made endless: 8,000 extra facts of one concept, grouped
again and again (one grouping takes under a second now, so a single one could end
before the signal lands)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from .planted import AGENT, build_graph_store, dump

CHILD = textwrap.dedent(
    """
    import random, signal, sys
    # A shell starts background jobs with SIGINT ignored, and a child inherits that (a
    # CI runner's jobs among them): have ctrl+c as a person at a terminal has it.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    from memexplorer.cli.main import main
    from memexplorer.operator import duplicates
    from memexplorer.operator.duplicates_grouping import DuplicateFact

    rng = random.Random(7)
    words = [f"word{i}" for i in range(32)]
    extra = [DuplicateFact(f"x{i}", "service config",
                           " ".join(rng.sample(words, 6)) + f" v{i % 50}",
                           (rng.choice(words[:5]),), 0.8, f"2025-01-01T{i:08d}")
             for i in range(8000)]
    group = duplicates.group_duplicates

    def grouped(facts, threshold, control=None):
        print("comparing", flush=True)  # the test's cue: the search is under way
        while True:  # searched again and again: only the ctrl+c ends it, on any machine
            group(list(facts) + extra, threshold, control)

    duplicates.group_duplicates = grouped
    sys.exit(main(sys.argv[1:]))
    """
)


def test_ctrl_c_stops_the_search_with_a_message(tmp_path: Path):
    home = tmp_path / "home" / ".amplihack"
    store = build_graph_store(home / "hierarchical_memory" / AGENT / "kuzu_db")
    before = dump(store)
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, "duplicates", AGENT, "--home", str(home)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )  # fmt: skip
    try:
        assert child.stdout is not None
        assert child.stdout.readline() == "comparing\n"  # blocks until the cue, or EOF
        child.send_signal(signal.SIGINT)
        sent = time.monotonic()
        out, err = child.communicate(timeout=30)
    finally:
        child.kill()
    assert child.returncode == 130, err
    assert time.monotonic() - sent < 5
    assert "Traceback" not in err
    assert err.startswith("stopped (ctrl+c) while ")
    assert "no groups listed; the store was only read, nothing was changed" in err
    assert out == ""
    assert dump(store) == before
