"""`memexplorer ... | head`: a reader that goes away ends the command quietly."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest


@pytest.mark.parametrize(
    "args",
    [["stats", "{ref}", "--json"], ["stats", "{ref}"], ["audit", "{ref}", "--json"]],
)
def test_closed_pipe_ends_quietly_with_sigpipe_status(reference_stores, args):
    # The read end is closed before the command starts, so its first write meets a
    # closed pipe every time (no race with a reader that closes "soon").
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        result = subprocess.run(
            [sys.executable, "-m", "memexplorer", *(a.format(ref=reference_stores) for a in args)],
            stdout=write_end,
            stderr=subprocess.PIPE,
            text=True,
            timeout=120,
        )
    finally:
        os.close(write_end)
    assert result.returncode == 141, result.stderr
    assert "Traceback" not in result.stderr
    assert "Exception ignored" not in result.stderr
    assert "BrokenPipe" not in result.stderr


def test_piped_stats_keep_each_row_on_one_line(reference_stores):
    """At 80 columns rich wrapped agent rows into cells; piped, each agent is one line
    with all its counts (MANIFEST: ops-agent 84 semantic, 22 episodic, 164 similar)."""
    result = subprocess.run(
        [sys.executable, "-m", "memexplorer", "stats", str(reference_stores / "home")],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "COLUMNS": ""},
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    store = reference_stores / "home/.amplihack/hierarchical_memory/ops-agent/kuzu_db"
    title = next(n for n, line in enumerate(lines) if line.startswith(str(store)))
    assert lines[title].endswith("hierarchical · kuzu · storage 39")
    header = [c for c in lines[title + 1].split() if c != "┃"]
    row = [c for c in lines[title + 3].split() if c != "│"]
    assert dict(zip(header, row, strict=True)) == {
        "agent": "ops-agent", "DERIVES_FROM": "27", "EpisodicMemory": "22",
        "SIMILAR_TO": "164", "SUPERSEDES": "21", "SemanticMemory": "84",
    }  # fmt: skip
