"""settle() fails a test whose app had a worker crash, unless the test expects it."""

from __future__ import annotations

import pytest
from conftest import settle
from textual import work
from textual.app import App
from textual.widgets import Static


class Crashing(App[None]):
    """Shows an error line when its worker fails, as memexplorer's screens do."""

    def __init__(self, error: BaseException) -> None:
        super().__init__()
        self.error = error

    def compose(self):
        yield Static("ok", id="status")

    def on_mount(self) -> None:
        self.fail()

    @work(thread=True, exit_on_error=False)
    def fail(self) -> None:
        raise self.error

    def on_worker_state_changed(self, event) -> None:
        if event.worker.error is not None:
            self.query_one("#status", Static).update(f"error: {event.worker.error}")


async def test_a_crashed_worker_fails_settle():
    app = Crashing(KeyError("boom"))
    async with app.run_test() as pilot:
        with pytest.raises(AssertionError, match=r"worker 'fail' failed with KeyError\('boom'\)"):
            await settle(pilot)


async def test_an_expected_failure_passes_settle():
    app = Crashing(LookupError("expected"))
    async with app.run_test() as pilot:
        await settle(pilot, failures=(LookupError,))
        assert str(app.query_one("#status", Static).render()) == "error: expected"


async def test_only_the_expected_type_passes():
    app = Crashing(TypeError("a bug"))
    async with app.run_test() as pilot:
        with pytest.raises(AssertionError, match="TypeError"):
            await settle(pilot, failures=(LookupError,))
