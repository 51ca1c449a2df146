"""The process's entry freezes the collector once the command is done, so Python's
teardown does not walk every imported object again (issue 17); in-process callers
of ``main`` keep theirs. The exit code and the output are the command's."""

from __future__ import annotations

import gc
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from memexplorer.cli.main import main

ROOT = Path(__file__).resolve().parent.parent

#: Runs the process's entry as ``python -m memexplorer`` does; at exit (after the
#: entry's sys.exit) says on stderr whether the collector was frozen.
ENTRY = """
import atexit, gc, runpy, sys
atexit.register(lambda: print(f"frozen={gc.get_freeze_count() > 0}", file=sys.stderr))
sys.argv = ["memexplorer", *sys.argv[1:]]
runpy.run_module("memexplorer", run_name="__main__")
"""


@pytest.mark.parametrize(
    ("argv", "code"),
    [(["stats", "{empty}"], 0), (["stats", "{empty}/missing"], 2), (["--version"], 0)],
)
def test_the_entry_freezes_the_collector_and_keeps_the_exit_code(tmp_path, argv, code):
    argv = [a.format(empty=tmp_path) for a in argv]
    result = subprocess.run([sys.executable, "-c", ENTRY, *argv], capture_output=True,
                            text=True, timeout=120)  # fmt: skip
    assert result.returncode == code, result.stderr
    assert result.stderr.strip().splitlines()[-1] == "frozen=True"


def test_the_script_is_the_entry():
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert scripts == {"memexplorer": "memexplorer.cli.main:run"}


def test_main_in_a_process_leaves_the_collector_alone(tmp_path, capsys):
    before = gc.get_freeze_count()
    assert main(["stats", str(tmp_path)]) == 0
    assert gc.get_freeze_count() == before
    assert "No memory stores found" in capsys.readouterr().err
