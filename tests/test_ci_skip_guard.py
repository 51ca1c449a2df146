"""The CI skip guard (tests/ci_skip_guard.py) and the per-test timeout, in a pytest of
their own: a skip fails under CI=true and stays a skip elsewhere; xfail is untouched."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).parent

SAMPLE = """
import pytest

def test_runs():
    pass

def test_skips():
    pytest.skip("needs something missing")

@pytest.mark.skipif(True, reason="marked away")
def test_marked():
    pass

@pytest.mark.xfail(reason="a known bug", strict=True)
def test_known_bug():
    assert False
"""

COLLECTION_SKIP = """
import pytest

pytest.importorskip("a_module_that_is_not_installed")

def test_never_collected():
    pass
"""


def _run(folder: Path, ci: str | None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    if ci is not None:
        env["CI"] = ci
    env["PYTHONPATH"] = str(HERE)
    command = [sys.executable, "-m", "pytest", "-p", "ci_skip_guard", "-p", "no:cacheprovider",
               "-rfEsx", "-o", "addopts=", str(folder)]  # fmt: skip
    return subprocess.run(command, env=env, cwd=folder, capture_output=True, text=True)


@pytest.fixture
def sample(tmp_path: Path) -> Path:
    (tmp_path / "test_sample.py").write_text(SAMPLE)
    return tmp_path


def test_skips_fail_under_ci(sample: Path):
    result = _run(sample, "true")
    assert result.returncode == 1, result.stdout
    # a skipif mark skips in setup, so it fails there: an error
    assert "1 failed, 1 passed, 1 xfailed, 1 error" in result.stdout, result.stdout
    assert "test_sample.py::test_skips skipped under CI=true" in result.stdout
    assert "test_sample.py::test_marked skipped under CI=true" in result.stdout


@pytest.mark.parametrize("ci", [None, "", "false", "0"])
def test_skips_stay_skips_outside_ci(sample: Path, ci: str | None):
    result = _run(sample, ci)
    assert result.returncode == 0, result.stdout
    assert "1 passed, 2 skipped, 1 xfailed" in result.stdout, result.stdout


def test_a_module_skipped_at_collection_fails_under_ci(tmp_path: Path):
    (tmp_path / "test_collection.py").write_text(COLLECTION_SKIP)
    result = _run(tmp_path, "true")
    assert result.returncode != 0, result.stdout
    assert "test_collection.py skipped under CI=true" in result.stdout
    assert _run(tmp_path, None).returncode == 5  # outside CI: skipped, nothing ran


def test_every_test_has_a_time_limit(pytestconfig: pytest.Config):
    # pytest-timeout is installed with the test extra and pyproject sets a default,
    # so a stuck test fails instead of hanging CI.
    assert pytestconfig.pluginmanager.hasplugin("timeout")
    assert 60 <= float(pytestconfig.getini("timeout")) <= 900
