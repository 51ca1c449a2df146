"""The CLI starts fast: its parser and ``stats`` load neither networkx nor Textual.

networkx alone took 0.13 s of every command's start, and no CLI command but the
ones that compute chains or retrieval uses it; Textual belongs to the app only.
This checks the import graph in a fresh interpreter, not a timing (the timings
are in benchmarks/scale_app.py).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

HEAVY = ("networkx", "textual")

CHECK = """
import contextlib, io, json, sys
from memexplorer.cli.main import main
with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
    try:
        code = main(sys.argv[2:])
    except SystemExit as exc:  # --help
        code = exc.code
loaded = sorted({m.split('.')[0] for m in sys.modules} & set(json.loads(sys.argv[1])))
print(json.dumps({"code": code, "loaded": loaded}))
"""


def _loaded(*argv: str) -> dict[str, object]:
    result = subprocess.run(
        [sys.executable, "-c", CHECK, *argv],
        capture_output=True, text=True, check=True, timeout=120,
    )  # fmt: skip
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_importing_the_cli_loads_no_heavy_module():
    found = _loaded(json.dumps(HEAVY), "--version")
    assert found["loaded"] == []


@pytest.mark.parametrize("argv", [["--help"], ["stats", "--help"], ["query", "--help"]])
def test_help_loads_no_heavy_module(argv):
    found = _loaded(json.dumps(HEAVY), *argv)
    assert found == {"code": 0, "loaded": []}


@pytest.mark.parametrize("output", [[], ["--json"]])
def test_stats_on_a_home_loads_no_heavy_module(reference_stores: Path, output: list[str]):
    """Every kind of store of the reference home (Kuzu graph stores and SQLite)."""
    home = reference_stores / "home" / ".amplihack"
    found = _loaded(json.dumps(HEAVY), "stats", str(home), *output)
    assert found == {"code": 0, "loaded": []}
