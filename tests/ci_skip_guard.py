"""Under CI, a skipped test fails: a suite that skips quietly proves nothing.

CI runs .ci/run with CI=true, which installs everything the tests need (the
ladybug extra included), so a test that skips there has lost what it checks.
A test that truly cannot run in CI is listed in ALLOWED_CI_SKIPS by node id,
with the reason. Expected failures (xfail) are not skips and are left alone.
tests/conftest.py registers these hooks; tests/test_ci_skip_guard.py runs them.
"""

from __future__ import annotations

import os

import pytest

#: Node id -> why it may skip under CI=true. Keep it empty unless there is no way.
ALLOWED_CI_SKIPS: dict[str, str] = {}


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def _fail_the_skip(report: pytest.CollectReport | pytest.TestReport, nodeid: str) -> None:
    longrepr = report.longrepr
    reason = longrepr[2] if isinstance(longrepr, tuple) else str(longrepr)
    report.outcome = "failed"
    report.longrepr = (
        f"{nodeid} skipped under CI=true ({reason}). CI must run every test: install "
        "what it needs in .ci/run, or list it in ALLOWED_CI_SKIPS (tests/ci_skip_guard.py) "
        "with the reason it cannot run there."
    )


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]):
    outcome = yield
    report = outcome.get_result()
    skipped = report.skipped and not hasattr(report, "wasxfail")
    if skipped and in_ci() and item.nodeid not in ALLOWED_CI_SKIPS:
        _fail_the_skip(report, item.nodeid)


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector: pytest.Collector):
    outcome = yield
    report = outcome.get_result()
    if report.skipped and in_ci() and collector.nodeid not in ALLOWED_CI_SKIPS:
        _fail_the_skip(report, collector.nodeid)
