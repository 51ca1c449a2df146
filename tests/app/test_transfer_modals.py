"""Pilot tests of the Export and Import modals on private copies of the reference stores:
the export writes what the engine would, cancel writes nothing, the import preview's
counts come from the file and the store, merge and replace change what was previewed."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import SIZE, settle
from store_helpers import checksums
from textual.widgets import DataTable, Input

from memexplorer.app.explorer_app import create_app
from memexplorer.app.screens.export_modal import ExportModal
from memexplorer.app.screens.import_modal import ImportModal
from memexplorer.app.screens.main_screen import MainScreen
from memexplorer.app.widgets.stores_tree import StoresTree
from memexplorer.operator.backup_records import list_backups
from memexplorer.operator.transfer import export_agent_store
from memexplorer.storage.exceptions import ImportDataError, StoreNotFoundError


def _ops(home: Path) -> Path:
    return home / "hierarchical_memory" / "ops-agent" / "kuzu_db"


def _export(home: Path, out: Path) -> dict:
    export_agent_store("ops-agent", out, home=home)
    data = json.loads(out.read_text())
    data.pop("exported_at", None)
    return data


async def _set(pilot, app, selector: str, value: str) -> None:
    app.screen.query_one(selector, Input).value = value
    await pilot.pause()


async def _preview(pilot, app, source: Path) -> ImportModal:
    """The import dialog (i), its file named and previewed (enter)."""
    await pilot.press("i")
    await settle(pilot)
    modal = app.screen
    assert isinstance(modal, ImportModal)
    await _set(pilot, app, "#source", str(source))
    await pilot.press("enter")
    await settle(pilot)
    return modal


def _assert_is_the_reference_export(data: dict, reference: dict) -> None:
    """The reference library's own export of the agent (format 1.0), in format 1.1."""
    assert (data["format_version"], data["agent_name"]) == ("1.1", reference["agent_name"])
    for key in ("semantic_nodes", "episodic_nodes"):
        assert sorted(data[key], key=lambda n: n["memory_id"]) == sorted(
            reference[key], key=lambda n: n["memory_id"]
        ), key
    for key in ("similar_to_edges", "derives_from_edges", "supersedes_edges"):
        assert sorted(map(json.dumps, data[key])) == sorted(map(json.dumps, reference[key])), key
    assert data["transitioned_to_edges"] == []  # the reference never writes any
    assert data["statistics"] == {**reference["statistics"], "transitioned_to_edge_count": 0}


async def test_export_json_and_cancel(home, tmp_path, reference_stores):
    reference = json.loads((reference_stores / "exports/ops-agent.export_to_json.json").read_text())
    app = create_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("e")  # the cursor is on the ops-agent store, its only agent
        await settle(pilot)
        modal = app.screen
        assert isinstance(modal, ExportModal) and modal.agent == "ops-agent"
        assert modal.query_one("#output", Input).value.startswith("~/memexplorer-exports/ops")
        await _set(pilot, app, "#output", str(tmp_path / "cancelled.json"))
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, MainScreen) and not (tmp_path / "cancelled.json").exists()
        await pilot.press("e")
        await settle(pilot)
        await _set(pilot, app, "#output", str(tmp_path / "out.json"))
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert isinstance(app.screen, MainScreen)
        assert any("SemanticMemory" in n.message for n in app._notifications)
    _assert_is_the_reference_export(json.loads((tmp_path / "out.json").read_text()), reference)


async def test_export_raw_db_changes_the_default_suffix(home, tmp_path):
    app = create_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("e")
        await settle(pilot)
        app.screen.query_one("#raw-db").value = True
        await settle(pilot)
        assert app.screen.query_one("#output", Input).value.endswith(".db")
        await _set(pilot, app, "#output", str(tmp_path / "copy.db"))
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert isinstance(app.screen, MainScreen)
    assert (tmp_path / "copy.db").stat().st_size > 0


async def test_import_preview_then_merge_and_replace(home, tmp_path):
    source = tmp_path / "ops.json"
    before = _export(home, source)
    semantic = len(before["semantic_nodes"])
    app = create_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        modal = await _preview(pilot, app, source)
        preview = modal.preview
        assert preview is not None
        assert preview.counts["semantic_nodes"] == semantic
        assert preview.existing["SemanticMemory"] == semantic  # every id is there already
        rows = modal.query_one("#counts", DataTable)
        assert [str(cell) for cell in rows.get_row_at(0)[:2]] == ["semantic_nodes", f"{semantic:,}"]
        assert "REPLACE" in str(modal.query_one("#change").render())
        await pilot.press("ctrl+t")
        assert "MERGE: 0 new nodes" in str(modal.query_one("#change").render())
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert isinstance(app.screen, MainScreen)
    assert _export(home, tmp_path / "merged.json") == before
    assert list_backups(home) == []  # a merge removes nothing
    app = create_app(home)
    async with app.run_test(size=SIZE) as pilot:  # replace: the same rows come back
        await settle(pilot)
        await pilot.press("i")
        await settle(pilot)
        await _set(pilot, app, "#source", str(source))
        await pilot.press("ctrl+o")
        await settle(pilot)
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert isinstance(app.screen, MainScreen)
    after = _export(home, tmp_path / "replaced.json")
    assert len(after["semantic_nodes"]) == semantic
    # The replaced store was saved under the app's home, where the Backups screen looks.
    (backup,) = list_backups(home)
    assert (backup.action, backup.store) == ("import", _ops(home))
    assert {n["memory_id"] for n in after["semantic_nodes"]} == {
        n["memory_id"] for n in before["semantic_nodes"]
    }


async def test_the_preview_says_which_edges_are_already_there(home, tmp_path):
    """The 'already there' column was blank for the edge lists. The file is the store's
    own export, so each of its edges is in the store, but one SIMILAR_TO edge whose
    target is changed to an id the store has not got: that one is not."""
    source = tmp_path / "ops.json"
    data = _export(home, source)
    edges = {name: len(rows) for name, rows in data.items() if name.endswith("_edges")}
    assert edges["similar_to_edges"] > 1 and edges["derives_from_edges"] > 0
    fresh = data["semantic_nodes"][0]["memory_id"] + "-new"
    data["similar_to_edges"][0]["target_id"] = fresh
    data["semantic_nodes"].append({**data["semantic_nodes"][0], "memory_id": fresh})
    source.write_text(json.dumps(data), encoding="utf-8")
    expected = {**edges, "similar_to_edges": edges["similar_to_edges"] - 1}
    app = create_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        modal = await _preview(pilot, app, source)
        table = modal.query_one("#counts", DataTable)
        shown = {str(row[0]): str(row[2]) for row in map(table.get_row_at, range(table.row_count))}
        assert {name: shown[name] for name in edges} == {n: f"{c:,}" for n, c in expected.items()}
        # The nodes' count is as before: ids there, the new one not.
        assert shown["semantic_nodes"] == f"{len(data['semantic_nodes']) - 1:,}"


async def test_import_of_a_bad_file_goes_to_the_error_modal(home, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("[1, 2")
    app = create_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("i")
        await settle(pilot)
        await _set(pilot, app, "#source", str(bad))
        await pilot.press("enter")
        await settle(pilot, failures=(ImportDataError,))
        assert type(app.screen).__name__ == "ErrorModal"
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, ImportModal) and app.screen.preview is None


async def test_import_into_a_new_agent_makes_its_store(home, tmp_path):
    source = tmp_path / "ops.json"
    before = _export(home, source)
    ops_sums = checksums(_ops(home).parent)
    # As the reference library does: a new agent's store is the file named after it.
    new_store = home / "hierarchical_memory" / "copy-agent"
    app = create_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("i")
        await settle(pilot)
        modal = app.screen
        assert isinstance(modal, ImportModal) and modal.agent == "ops-agent"
        await _set(pilot, app, "#agent", "bad name/")
        assert modal.agent == "" and "agent" in str(modal.query_one("#store").render()).lower()
        await _set(pilot, app, "#agent", "copy-agent")
        assert modal.store == new_store
        assert "a new store" in str(modal.query_one("#store").render())
        await _set(pilot, app, "#source", str(source))
        await pilot.press("ctrl+o")
        await settle(pilot)
        assert modal.preview.existing == {"SemanticMemory": 0, "EpisodicMemory": 0}
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert isinstance(app.screen, MainScreen)
        tree = app.screen.query_one(StoresTree)
        assert any(entry.path == new_store for entry in tree.entries)
    after = json.loads(json.dumps(export_agent_store("copy-agent", tmp_path / "c.json",
                                                     home=home).counts))  # fmt: skip
    assert after["SemanticMemory"] == len(before["semantic_nodes"])
    assert checksums(_ops(home).parent) == ops_sums


async def test_import_dialog_previews_again_on_every_field_change(home, tmp_path):
    """After a preview, another agent name re-previews (the old summary stayed, and
    ctrl+s did nothing until the file was entered again); a bad name clears it."""
    source = tmp_path / "ops.json"
    before = _export(home, source)
    incoming = len(before["semantic_nodes"]) + len(before["episodic_nodes"])
    app = create_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("i")
        await settle(pilot)
        modal = app.screen
        await _set(pilot, app, "#source", str(source))
        await settle(pilot)
        assert modal.preview is not None and "REPLACE" in str(modal.query_one("#change").render())
        await _set(pilot, app, "#agent", "o")
        await settle(pilot)
        summary = str(modal.query_one("#change").render())
        assert summary.startswith(f"NEW: o gets the file's {incoming:,} nodes")
        await _set(pilot, app, "#agent", "bad name/")
        await settle(pilot)
        assert modal.preview is None and modal.query_one("#confirm").disabled
        assert "NEW" not in str(modal.query_one("#change").render())
        await _set(pilot, app, "#agent", "fresh-agent")
        await settle(pilot)
        assert str(modal.query_one("#change").render()).startswith("NEW: fresh-agent gets")
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert isinstance(app.screen, MainScreen)
    assert (home / "hierarchical_memory" / "fresh-agent").exists()


async def test_a_missing_import_file_says_so_as_the_cli_does(home, tmp_path):
    app = create_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("i")
        await settle(pilot)
        await _set(pilot, app, "#source", str(tmp_path / "nowhere.json"))
        await pilot.press("enter")
        await settle(pilot, failures=(StoreNotFoundError,))
        assert type(app.screen).__name__ == "ErrorModal"
        assert "No such file to import" in app.screen.message
        assert "bug" not in app.screen.message


async def test_the_chosen_export_format_reads_without_colour(home):
    from memexplorer.app.widgets.marked_radio import MarkedRadioButton

    app = create_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("e")
        await settle(pilot)
        json_button, raw_button = app.screen.query(MarkedRadioButton)

        def marks() -> tuple[str, str]:
            return tuple(b.render().plain.lstrip("▐")[0] for b in (json_button, raw_button))

        assert marks() == ("●", "○")
        raw_button.value = True
        await pilot.pause()
        assert marks() == ("○", "●")
