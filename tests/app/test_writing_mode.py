"""Pilot tests of writing mode and the console's writes: the switch asks first and is
refused while another process holds the store; console writes are refused read-only,
confirmed in writing mode, change exactly what they say and are undone from a backup;
the console's history survives a restart."""

from __future__ import annotations

from pathlib import Path

from conftest import SIZE, settle
from store_helpers import checksums, held_by_another_process
from textual.widgets import TextArea

from memexplorer.app.explorer_app import create_app
from memexplorer.app.screens.confirm_modal import ConfirmModal
from memexplorer.app.screens.console_screen import ConsoleScreen
from memexplorer.app.screens.error_modal import ErrorModal
from memexplorer.app.screens.main_screen import MainScreen
from memexplorer.app.screens.writing_modal import WritingModal
from memexplorer.app.widgets.history_list import HistoryList
from memexplorer.operator.backup_records import list_backups
from memexplorer.storage.exceptions import StoreLockedError
from memexplorer.storage.graphdb import KuzuStore

OPS = "hierarchical_memory/ops-agent/kuzu_db"
ROWS = "MATCH (n:SemanticMemory) RETURN n.memory_id, n.concept, n.content ORDER BY n.memory_id"


def _rows(store: Path) -> list[list[object]]:
    with KuzuStore(store) as graph:
        return graph.rows(ROWS)


async def _press(pilot, *names: str, failures: tuple[type[BaseException], ...] = ()) -> None:
    for name in names:
        await pilot.press(name)
        await settle(pilot, failures)


async def test_switch_asks_first_then_writes_and_back(home):
    store = home / OPS
    app = create_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        main = app.screen
        await _press(pilot, "w")  # the tree's cursor is on the first store: ops-agent
        assert isinstance(app.screen, WritingModal)
        text = " ".join(str(s.render()) for s in app.screen.query(".detail"))
        assert str(store) in text and "must not be writing" in text and "backups" in text
        await _press(pilot, "escape")
        assert app.screen is main and not app.session.browsers.writing(store)
        assert main.sub_title.startswith("read-only")
        await _press(pilot, "w", "y")
        assert app.screen is main and app.session.browsers.writing(store)
        assert not app.session.browsers.get(store).graph.read_only
        assert main.sub_title.startswith("writing kuzu_db")
        await _press(pilot, "down", "enter", "down", "down", "enter")  # SemanticMemory
        assert main.sub_title.startswith("writing · kuzu")
        assert main.table.page is not None and main.table.page.total == 84
        await _press(pilot, "t", "w")  # back to read-only: no confirm
        assert app.screen is main and not app.session.browsers.writing(store)
        assert app.session.browsers.get(store).graph.read_only
        assert main.sub_title.startswith("read-only · kuzu")


async def test_switch_refused_while_another_process_holds_the_store(home):
    store = home / OPS
    app = create_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        main = app.screen
        with held_by_another_process(store, "ro"):
            await _press(pilot, "w", "y", failures=(StoreLockedError,))
            assert isinstance(app.screen, ErrorModal)
            assert app.screen.error_title == StoreLockedError.title
            assert "Another process has this store open" in app.screen.message
            assert "for writing" not in app.screen.message.split(",")[0]
            await _press(pilot, "escape")
            assert app.screen is main and not app.session.browsers.writing(store)
            assert app.session.browsers.get(store).graph.read_only
            assert main.sub_title.startswith("read-only")
            # Still browsable, read-only, while the other process holds it.
            await _press(pilot, "down", "enter", "down", "down", "enter")
            assert main.table.page is not None and main.table.page.total == 84


async def _console(pilot) -> ConsoleScreen:
    await _press(pilot, "colon")
    assert isinstance(pilot.app.screen, ConsoleScreen)
    return pilot.app.screen


async def _type_and_run(pilot, screen: ConsoleScreen, text: str) -> None:
    screen.query_one(TextArea).text = text
    await _press(pilot, "ctrl+r")


async def test_console_write_refused_read_only_then_confirmed_and_undone(home):
    store = home / OPS
    before = _rows(store)
    target = before[0][0]
    write = f"MATCH (n:SemanticMemory) WHERE n.memory_id = '{target}' SET n.content = 'edited'"
    app = create_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = await _console(pilot)
        await _type_and_run(pilot, screen, write)
        assert isinstance(app.screen, ErrorModal) and "Press w" in app.screen.message
        await _press(pilot, "escape", "f6", "y")  # writing mode from the console
        assert app.screen is screen and app.session.browsers.writing(store)
        assert screen.sub_title.startswith("writing console")
        await _type_and_run(pilot, screen, write)
        assert isinstance(app.screen, ConfirmModal)
        shown = " ".join(str(s.render()) for s in app.screen.query(".detail"))
        assert "Parameters" in shown and "whole store is saved" in shown
        await _press(pilot, "escape")  # cancelled: nothing written, no backup
        assert app.screen is screen and list_backups(home) == []
        # The line says so (it kept "refused: the store is read-only" from before).
        assert str(screen.query_one("#status").render()) == "cancelled: nothing was written"
        await _type_and_run(pilot, screen, write)
        await _press(pilot, "y")
        assert app.screen is screen
        [backup] = list_backups(home)
        assert backup.action == "console-write" and backup.selection == {"statement": write}
        # Kuzu gives no count for a write: the line says so (it said "0 rows in N ms").
        assert str(screen.query_one("#status").render()).startswith("written in ")
        rows = screen.app.session.browsers.get(store).graph.rows(ROWS)
        changed = [(old, new) for old, new in zip(before, rows, strict=True) if old != new]
        assert changed == [(before[0], [target, before[0][1], "edited"])]
        await _press(pilot, "f8")
        assert str(screen.query_one("#status").render()).startswith("undone")
        assert app.session.browsers.writing(store)  # still in writing mode, on the restored file
        assert app.session.browsers.get(store).graph.rows(ROWS) == before
        await _press(pilot, "escape")
        assert isinstance(app.screen, MainScreen)
    assert _rows(store) == before
    assert list_backups(home)[0].restored


async def test_console_reads_never_ask_and_never_back_up(home):
    before = checksums(home / OPS)
    app = create_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = await _console(pilot)
        await _type_and_run(pilot, screen, "CALL show_tables() RETURN *")
        assert app.screen is screen and screen.result is not None
        assert screen.result.data.num_rows > 0
    assert checksums(home / OPS) == before and list_backups(home) == []


async def test_console_history_survives_a_new_app(home, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    queries = ["MATCH (n:SemanticMemory) RETURN count(n)", "MATCH (e:EpisodicMemory) RETURN e"]
    app = create_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = await _console(pilot)
        for text in queries:
            await _type_and_run(pilot, screen, text)
    saved = tmp_path / "data" / "memexplorer" / "console_history.jsonl"
    assert saved.is_file() and saved.stat().st_mode & 0o777 == 0o600
    app = create_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = await _console(pilot)
        history = screen.query_one(HistoryList)
        assert [e.query for e in history.entries] == queries
        await _press(pilot, "ctrl+up")
        assert screen.query_one(TextArea).text == queries[1]
        await _press(pilot, "ctrl+up")
        assert screen.query_one(TextArea).text == queries[0]
        screen.query_one(TextArea).text = "semanticmemory count"
        await settle(pilot)
        assert [e.query for e in history.shown] == [queries[0]]


async def test_a_failed_console_write_offers_its_backup_and_is_not_news(home):
    """The backup is saved before the statement runs; when the statement fails, the
    error shows, the backup is offered as the undo (statements before the failing one
    are committed) and the store's own files moving is not called a change on disk."""
    store = home / OPS
    before = _rows(store)
    app = create_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await _press(pilot, "w", "y")
        screen = await _console(pilot)
        await _type_and_run(pilot, screen, "MATCH (n:SemanticMemory) SET n.no_such_column = 1")
        await _press(pilot, "y", failures=(Exception,))
        assert isinstance(app.screen, ErrorModal) and "no_such_column" in app.screen.message
        await _press(pilot, "escape")
        [backup] = list_backups(home)
        assert backup.action == "console-write"
        assert screen.undo_offered is not None and screen.undo_offered.path == backup.path
        assert str(screen.query_one("#status").render()) == "failed"
        assert app.session.newly_changed() == []
        await _press(pilot, "f8")
        assert str(screen.query_one("#status").render()).startswith("undone")
        await _press(pilot, "escape")
    assert _rows(store) == before
