"""The Export and Import modals show the engine's progress, and escape during a run
cancels it: nothing written, the store unchanged, a notification rather than an error.

The runs are held at their first checkpoint by a gate around the real engine call,
so the escape always lands while the work is under way, never before or after.
"""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

from conftest import SIZE, settle
from store_helpers import checksums
from textual.widgets import Input

from memexplorer.app.explorer_app import create_app
from memexplorer.app.screens import export_modal, import_modal
from memexplorer.app.screens.error_modal import ErrorModal
from memexplorer.app.screens.export_modal import ExportModal
from memexplorer.app.screens.import_modal import ImportModal
from memexplorer.app.screens.main_screen import MainScreen
from memexplorer.app.widgets.path_suggester import complete_path
from memexplorer.app.widgets.task_progress import TaskProgress
from memexplorer.operator.transfer import export_agent_store
from memexplorer.storage.progress import OperationCancelled, TaskControl


class Gate:
    """Wraps an engine call: its first progress report waits until ``release()``."""

    def __init__(self, monkeypatch, module, name: str) -> None:
        self.reached = threading.Event()
        self.go = threading.Event()
        real = getattr(module, name)

        def gated(*args, control: TaskControl, **kwargs):
            report = control._report

            def held(step):
                report(step)
                if not self.reached.is_set():
                    self.reached.set()
                    assert self.go.wait(30), "the test never released the gate"

            control._report = held
            return real(*args, control=control, **kwargs)

        monkeypatch.setattr(module, name, gated)

    async def wait_reached(self, pilot) -> None:
        deadline = time.monotonic() + 60
        while not self.reached.is_set():
            assert time.monotonic() < deadline, "the task never reached the gate"
            await pilot.pause(0.01)

    def release(self) -> None:
        self.go.set()


def _ops(home: Path) -> Path:
    return home / "hierarchical_memory" / "ops-agent" / "kuzu_db"


async def test_escape_cancels_a_running_export(home, tmp_path, monkeypatch):
    gate = Gate(monkeypatch, export_modal, "export_agent_store")
    out = tmp_path / "ops.json"
    app = create_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("e")
        await settle(pilot)
        modal = app.screen
        assert isinstance(modal, ExportModal)
        modal.query_one("#output", Input).value = str(out)
        await pilot.press("ctrl+s")
        await gate.wait_reached(pilot)
        await pilot.pause()
        progress = modal.query_one(TaskProgress)
        assert progress.has_class("-running")
        assert "reading SemanticMemory" in str(progress.query_one("#stage").render())
        await pilot.press("escape")  # cancels; does not close
        assert app.screen is modal and modal.control.cancelled
        gate.release()
        await settle(pilot, failures=(OperationCancelled,))
        assert app.screen is modal and not modal.running
        assert "Cancelled: nothing was written" in str(progress.query_one("#stage").render())
        assert not isinstance(app.screen, ErrorModal)
        assert any(n.title == "Cancelled" for n in app._notifications)
        gate.reached.clear()  # a second try shows its bar again
        gate.go.clear()
        await pilot.press("ctrl+s")
        await gate.wait_reached(pilot)
        await pilot.pause()
        assert progress.query_one("#bar").display
        gate.release()
        await settle(pilot)
        assert isinstance(app.screen, MainScreen)
    assert json.loads(out.read_text())["agent_name"] == "ops-agent"
    assert not list(tmp_path.glob("*.tmp"))


async def test_export_progress_ends_in_the_file(home, tmp_path, monkeypatch):
    out = tmp_path / "ops.json"
    seen: list[str] = []
    show = TaskProgress.show

    def spy(widget, step):
        seen.append(step.stage)
        show(widget, step)

    monkeypatch.setattr(TaskProgress, "show", spy)
    app = create_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("e")
        await settle(pilot)
        app.screen.query_one("#output", Input).value = str(out)
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert isinstance(app.screen, MainScreen)
    assert seen[0] == "reading SemanticMemory" and seen[-1] == "putting the file in place"
    assert len(json.loads(out.read_text())["semantic_nodes"]) == 84


async def test_escape_cancels_a_running_import(home, tmp_path, monkeypatch):
    source = tmp_path / "ops.json"
    export_agent_store("ops-agent", source, home=home)
    before = checksums(_ops(home).parent)
    gate = Gate(monkeypatch, import_modal, "import_agent_store")
    app = create_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("i")
        await settle(pilot)
        modal = app.screen
        assert isinstance(modal, ImportModal)
        modal.query_one("#source", Input).value = str(source)
        await pilot.press("ctrl+o")
        await settle(pilot)
        await pilot.press("ctrl+s")
        await gate.wait_reached(pilot)
        await pilot.pause()
        assert modal.query_one(TaskProgress).has_class("-running")
        await pilot.press("escape")
        gate.release()
        await settle(pilot, failures=(OperationCancelled,))
        assert app.screen is modal and not modal.running
        stage = str(modal.query_one(TaskProgress).query_one("#stage").render())
        assert "Cancelled: nothing was imported" in stage
        assert not modal.query_one("#confirm").disabled  # the operator may try again
    assert checksums(_ops(home).parent) == before


def test_paths_complete_from_the_file_system(tmp_path):
    (tmp_path / "exports").mkdir()
    (tmp_path / "exports" / "ops-agent-2026.json").write_text("{}")
    (tmp_path / ".hidden").write_text("")
    assert complete_path(f"{tmp_path}/ex") == f"{tmp_path}/exports/"
    assert complete_path(f"{tmp_path}/exports/ops") == f"{tmp_path}/exports/ops-agent-2026.json"
    assert complete_path(f"{tmp_path}/.hi") == f"{tmp_path}/.hidden"
    assert complete_path(f"{tmp_path}/nothing-like-this") is None
    assert complete_path(f"{tmp_path}/missing-folder/x") is None


async def test_the_export_path_completes_as_it_is_typed(home, tmp_path):
    (tmp_path / "exports-here").mkdir()
    app = create_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("e")
        await settle(pilot)
        box = app.screen.query_one("#output", Input)
        box.value = ""
        await pilot.pause()
        for key in f"{tmp_path}/exp":
            await pilot.press(
                key if key not in "/-." else {"/": "slash", "-": "minus", ".": "full_stop"}[key]
            )
        await settle(pilot)
        await pilot.press("right")
        assert box.value == f"{tmp_path}/exports-here/"
