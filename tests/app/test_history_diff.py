"""Pilot tests of an agent's history (h) and the diff screen: the timeline lists its
snapshots and backups newest first; a diff from a clean's backup to now shows exactly
the facts the clean removed (read from the reference library's own export)."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from pathlib import Path

from conftest import SIZE, settle
from diff_exports import AFTER, BEFORE
from textual.widgets import DataTable

from memexplorer.app.explorer_app import create_app
from memexplorer.app.screens import diff_screen
from memexplorer.app.screens.diff_screen import DiffScreen
from memexplorer.app.screens.history_screen import HistoryScreen
from memexplorer.app.screens.main_screen import MainScreen
from memexplorer.app.screens.node_detail_screen import NodeDetailScreen
from memexplorer.operator.clean import clean_store, clean_target
from memexplorer.operator.clean_selection import Selection
from memexplorer.operator.snapshots import take_snapshot


def _store(home: Path) -> Path:
    return home / "hierarchical_memory" / "ops-agent" / "kuzu_db"


def _ports(home: Path) -> list[str]:
    export = home.parent.parent / "exports" / "ops-agent.export_to_json.json"
    nodes = json.loads(export.read_text())["semantic_nodes"]
    return sorted(n["memory_id"] for n in nodes if n["concept"] == "service ports")


def _cells(table: DataTable, column: int) -> list[str]:
    return [str(table.get_row_at(i)[column]) for i in range(table.row_count)]


async def test_history_lists_snapshots_and_backups_and_diffs_from_one(home: Path) -> None:
    take_snapshot("ops-agent", home=home, now=datetime(2026, 11, 20, 8, 0, tzinfo=UTC))
    clean = clean_store(clean_target(_store(home)), Selection("service ports", agent="ops-agent"),
                        home=home)  # fmt: skip
    app = create_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("h")  # the cursor is on the ops-agent store, its only agent
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, HistoryScreen) and screen.agent == "ops-agent"
        table = screen.query_one("#history", DataTable)
        assert _cells(table, 0)[1] == "2026-11-20 08:00:00"  # the snapshot, older, second
        assert [e.kind for e in screen.entries] == ["backup", "snapshot"]
        assert screen.entries[0].path == clean.backup.path
        assert _cells(table, 1)[0].startswith("backup before clean · ")
        await pilot.press("enter")  # the backup: what changed since the clean
        await settle(pilot)
        diff = app.screen
        assert isinstance(diff, DiffScreen) and diff.report is not None
        tables = diff.query_one("#diff-tables", DataTable)
        semantic = tables.get_row("SemanticMemory")
        assert [str(c) for c in semantic[1:]] == ["0", str(len(_ports(home))), "0"]
        records = diff.query_one("#diff-records", DataTable)
        assert _cells(records, 0) == ["-"] * len(_ports(home))
        assert sorted(diff.keys.values()) == _ports(home)
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen is screen
        # s keeps a snapshot now; it comes first.
        await pilot.press("s")
        await settle(pilot)
        assert [e.kind for e in screen.entries] == ["snapshot", "backup", "snapshot"]
        await pilot.press("enter")  # the new snapshot against now: nothing changed
        await settle(pilot)
        assert app.screen.report.diff.empty
        assert "no differences" in str(app.screen.query_one("#diff-sides").render())


async def test_diff_opens_a_changed_fact(home: Path, tmp_path: Path) -> None:
    snap = take_snapshot("ops-agent", home=home)
    data = json.loads(snap.path.read_text())
    fact = data["semantic_nodes"][0]
    fact["content"] = "a value once"
    snap.path.write_text(json.dumps(data))
    app = create_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.push_screen(
            DiffScreen(app.session, snap.path, _store(home), agent="ops-agent", home=home)
        )
        await settle(pilot)
        records = app.screen.query_one("#diff-records", DataTable)
        assert (_cells(records, 0), list(app.screen.keys.values())) == (["~"], [fact["memory_id"]])
        assert _cells(records, 1) == [fact["memory_id"][:13] + "…"]
        assert _cells(records, 2)[0].startswith("content: a value once → Service checkout-api")
        records.focus()
        await pilot.press("o")
        await settle(pilot)
        assert isinstance(app.screen, NodeDetailScreen)
        assert app.screen.ref.key == fact["memory_id"]


async def test_history_of_a_store_with_nothing_yet(home: Path) -> None:
    app = create_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("h")
        await settle(pilot)
        title = str(app.screen.query_one("#history-title").render())
        assert "no snapshots or backups yet; s keeps a snapshot now" in title
        await pilot.press("d")
        await settle(pilot)
        assert isinstance(app.screen, HistoryScreen)  # nothing to compare: it stays


async def test_the_palette_lists_find_and_history(home: Path) -> None:
    app = create_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        titles = {command.title for command in app.get_system_commands(app.screen)}
        assert {"Find", "History"} <= titles
        await pilot.press("h")
        await settle(pilot)
        titles = {command.title for command in app.get_system_commands(app.screen)}
        assert {"What changed", "Snapshot", "Find"} <= titles


async def test_a_long_list_of_changes_is_cut_and_said(
    home: Path, tmp_path: Path, monkeypatch
) -> None:
    monkeypatch.setattr(diff_screen, "MAX_ROWS", 1)
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.write_text(json.dumps(BEFORE))
    b.write_text(json.dumps(AFTER))
    app = create_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.push_screen(DiffScreen(app.session, a, b, agent=None, home=None))
        await settle(pilot)
        records = app.screen.query_one("#diff-records", DataTable)
        # 2 added, 1 removed, 3 changed (tests/diff_exports.py): one of each shown.
        assert _cells(records, 0) == ["+", "+", "-", "~", "~"]
        assert _cells(records, 2)[1] == "… 1 more; memexplorer diff A B --json lists every one"
        assert _cells(records, 2)[4] == "… 2 more; memexplorer diff A B --json lists every one"


async def test_no_snapshot_in_a_read_only_session(home: Path, monkeypatch) -> None:
    """A snapshot writes a file, as an export does: a read-only session says so and
    writes nothing; what changed still opens."""
    monkeypatch.setenv("MEMEXPLORER_READ_ONLY", "1")
    app = create_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("h")
        await settle(pilot)
        await pilot.press("s")
        await settle(pilot)
        notes = [n.message for n in app._notifications]
        assert any(n.startswith("A snapshot (it writes a file on this machine) is not "
                                "available: this session is read-only") for n in notes)  # fmt: skip
        assert not (home / "backups" / ".snapshots").exists()


async def test_history_of_a_rust_sqlite_agent(rust_sqlite_home: Path) -> None:
    """amplihack-rs's <agent>.db: h on an agent, s keeps a snapshot, enter shows nothing
    changed since; on ghost-agent.db (rows of no agent) h says there is none."""
    app = create_app(rust_sqlite_home / "home" / ".amplihack")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("down", "h")  # ghost-agent.db's agent row: its rows name no agent
        await settle(pilot)
        assert isinstance(app.screen, MainScreen)
        assert [n.message for n in app._notifications][-1] == (
            "ghost-agent.db holds no agent to compare")  # fmt: skip
        await pilot.press("down", "down", "h")  # ops-agent.db's agent
        await settle(pilot)
        assert isinstance(app.screen, HistoryScreen) and app.screen.agent == "ops-agent"
        await pilot.press("s")
        await settle(pilot)
        assert [e.kind for e in app.screen.entries] == ["snapshot"]
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, DiffScreen) and app.screen.report.diff.empty
        assert app.screen.report.b.path.name == "ops-agent.db"


async def test_history_lists_only_this_store_s_backups(home: Path) -> None:
    """Another store of the same agent (its experiences) has backups of its own; they
    are not points in this store's past (one was listed, and enter on it failed with
    a Binder exception: the diff read the experience store as a hierarchical one)."""
    experiences = home / "memory" / "ops-agent" / "experiences.db"
    other = clean_store(clean_target(experiences), Selection("*"), home=home)
    assert "ops-agent" in other.backup.agents  # the same agent, in another store
    mine = clean_store(clean_target(_store(home)),
                       Selection("service ports", agent="ops-agent"), home=home)  # fmt: skip
    app = create_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("h")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, HistoryScreen) and screen.store == _store(home)
        assert [entry.path for entry in screen.entries] == [mine.backup.path]
        # Said in words, nodes apart from edges (it read "12 row(s)", edges counted in).
        assert re.fullmatch(r"backup before clean · \d+ rows? and \d+ edges?",
                            screen.entries[0].label), screen.entries[0].label  # fmt: skip
