"""Each pytest run gets a temporary root of its own.

pytest's default root (/tmp/pytest-of-<user>/pytest-N) numbers runs and deletes all
but the newest three: two runs started together on one machine deleted each other's
folders mid-run (180 errors in each of two CI runs at once). A run that is not given
``--basetemp`` now works under a fresh ``mkdtemp`` folder, removed when the run
passes (kept after a failure, for a look at what the failing test left).
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest

_OWN_ROOT = pytest.StashKey[Path]()
_PASSED = pytest.StashKey[bool]()


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    if config.option.basetemp is None:
        root = Path(tempfile.mkdtemp(prefix="memexplorer-tests-"))
        config.option.basetemp = str(root / "run")
        config.stash[_OWN_ROOT] = root


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    session.config.stash[_PASSED] = exitstatus == 0


def pytest_unconfigure(config: pytest.Config) -> None:
    root = config.stash.get(_OWN_ROOT, None)
    if root is not None and config.stash.get(_PASSED, False):
        shutil.rmtree(root, ignore_errors=True)
