"""Pilot tests of the credential audit screen on private copies of the reference stores:
the findings, opening their nodes, and redaction (the confirm lists exactly what changes,
cancel changes nothing, confirm changes exactly that, Undo restores), checked against
the stores' own rows on every store kind that holds findings."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from conftest import SIZE, settle
from textual.widgets import DataTable

from memexplorer.app.explorer_app import create_app
from memexplorer.app.operator_session import operator_home
from memexplorer.app.screens.audit_labels import node_ref, same_value, store_labels, trimmed
from memexplorer.app.screens.audit_screen import AuditScreen
from memexplorer.app.screens.main_screen import MainScreen
from memexplorer.app.screens.node_detail_screen import NodeDetailScreen
from memexplorer.app.screens.redact_modal import RedactModal
from memexplorer.app.widgets.node_ref import NodeRef
from memexplorer.memory.security import find_secrets
from memexplorer.operator.audit import FindingLocation
from memexplorer.storage.graphdb import KuzuStore, identifier

Rows = dict[tuple[str, str], dict[str, object]]

STORES = {
    "hierarchical": "home/.amplihack/hierarchical_memory/ops-agent/kuzu_db",
    "cognitive": "cognitive_db",
    "experience-kuzu": "home/.amplihack/memory/ops-agent/kuzu_db",
    "experience-sqlite": "home/.amplihack/memory/ops-agent/experiences.db",
}


def _rows(store: Path) -> Rows:
    """Every row of every table of the store, by (table, key)."""
    rows: Rows = {}
    if store.suffix == ".db":
        connection = sqlite3.connect(f"file:{store}?mode=ro", uri=True)
        connection.row_factory = sqlite3.Row
        tables = connection.execute(
            "SELECT name, sql FROM sqlite_master WHERE type = 'table'"
        ).fetchall()
        virtual = [n for n, sql in tables if (sql or "").upper().startswith("CREATE VIRTUAL")]
        for name, _ in tables:
            if name in virtual or any(name.startswith(f"{v}_") for v in virtual):
                continue
            for row in connection.execute(f"SELECT rowid AS _rowid, * FROM {identifier(name)}"):
                rows[(name, str(row["_rowid"]))] = dict(row)
        connection.close()
        return rows
    with KuzuStore(store, read_only=True) as graph:
        for table in graph.node_tables():
            key = graph.primary_key(table)
            names = [name for name, _ in graph.columns(table)]
            columns = ", ".join(f"n.{identifier(name)}" for name in names)
            for values in graph.rows(f"MATCH (n:{identifier(table)}) RETURN {columns}"):
                row = dict(zip(names, values, strict=True))
                rows[(table, str(row[key]))] = row
    return rows


def _changed(before: Rows, after: Rows) -> set[tuple[str, str, str]]:
    assert before.keys() == after.keys()
    return {(table, key, column) for (table, key), row in before.items()
            for column, value in row.items() if after[(table, key)][column] != value}  # fmt: skip


def _cells(store: Path, before: Rows, where: FindingLocation) -> tuple[str, str, str]:
    """The (table, key, column) of a location as _rows names it."""
    value = where.key[0][1]
    if store.suffix == ".db":  # _rows keys SQLite rows by rowid
        name = where.key[0][0]
        key = next(k for (t, k), row in before.items() if t == where.table and row[name] == value)
        return where.table, key, where.column
    return where.table, str(value), where.column


async def _audit(app, pilot) -> AuditScreen:
    await settle(pilot)
    await pilot.press("a")
    await settle(pilot)
    screen = app.screen
    assert isinstance(screen, AuditScreen) and screen.report is not None
    return screen


def _cursor_to(screen: AuditScreen, index: int) -> None:
    table = screen.query_one("#findings", DataTable)
    table.move_cursor(row=table.get_row_index(str(index)))


@pytest.mark.parametrize("kind", list(STORES))
async def test_redact_preview_cancel_confirm_and_undo(kind, reference_stores):
    store = reference_stores / STORES[kind]
    before = _rows(store)
    app = create_app(reference_stores)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _audit(app, pilot)
        findings = screen.report.findings
        mine = [i for i, f in enumerate(findings) if f.location.path == store]
        assert mine, f"the reference {kind} store holds findings"
        # Two values of this store: the first finding's, and the next one's that differs.
        first = findings[mine[0]].location
        other = next(i for i in mine if not same_value(findings[i].location, first))
        for index in (mine[0], other):
            _cursor_to(screen, index)
            await pilot.press("space")
        expected = {i for i in mine if same_value(findings[i].location, first)
                    or same_value(findings[i].location, findings[other].location)}  # fmt: skip
        assert screen.selected == expected  # a value's findings are selected together
        await pilot.press("d")
        await settle(pilot)
        modal = app.screen
        assert isinstance(modal, RedactModal)
        planned = {_cells(store, before, c.location) for c in modal.changes}
        assert len(planned) == 2 and all(c.redacted for c in modal.changes)
        shown = modal.query_one("#changes", DataTable)
        assert shown.row_count == 2
        backups = operator_home(reference_stores, store) / "backups"
        assert f"under {backups}." in modal.summary()
        summary = " ".join(modal.summary().split())
        assert summary.startswith("Replace every secret in 2 values of 1 store with")
        assert f"This writes to {store}, though the app browses it read-only" in summary
        rewrite = "rewritten into a fresh file, so the old values leave its bytes"
        assert (rewrite in summary) == (store.suffix != ".db")  # graph stores only
        await pilot.press("escape")  # cancel: nothing changes
        await settle(pilot)
        assert app.screen is screen and _rows(store) == before
        await pilot.press("d")
        await settle(pilot)
        await pilot.press("y")
        await settle(pilot)
        after = _rows(store)
        assert _changed(before, after) == planned
        for table, key, column in planned:
            value = str(after[(table, key)][column])
            assert "[REDACTED]" in value and not find_secrets(value)
        offered = screen.undo_offered
        assert offered is not None and len(screen.report.findings) < len(findings)
        assert [record.path.parent for record in offered] == [backups]
        await pilot.press("u")
        await settle(pilot)
        assert _rows(store) == before
        assert len(screen.report.findings) == len(findings)
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, MainScreen)


async def test_findings_title_selection_and_sort(home, reference_stores, manifest):
    # The fields the reference library flags in the stores under this home (MANIFEST.json).
    flagged = {
        (str(reference_stores / store), field["table"], field["id"], field["field"])
        for store, entry in manifest["databases"].items()
        if store.startswith("home/.amplihack/")
        for field in entry["inventory"]["credential_audit"]
    }
    app = create_app(home)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _audit(app, pilot)
        table = screen.query_one("#findings", DataTable)
        findings = screen.report.findings
        assert {(f.store, f.table, f.id, f.column) for f in findings} == flagged
        assert len(findings) == table.row_count
        assert screen.title == f"Credential audit: {len(findings)} findings"
        shown = " ".join(str(cell) for row in range(table.row_count)
                         for cell in table.get_row_at(row))  # fmt: skip
        assert "AKIA***" in shown and "AKIAFAKE" not in shown  # previews are masked
        stores = [screen.report.findings[int(k.value)].store for k in table.rows]
        assert stores == sorted(stores, key=stores.index)  # grouped by store
        await pilot.press("s")  # by kind
        kinds = [str(table.get_row_at(row)[5]) for row in range(table.row_count)]
        assert kinds == sorted(kinds) and screen.sort == "kind"
        await pilot.press("a")
        assert screen.selected == set(range(table.row_count))
        await pilot.press("a")
        assert screen.selected == set()
        await pilot.press("d")  # nothing selected: no confirm
        await settle(pilot)
        assert app.screen is screen


async def test_enter_opens_the_finding_node_on_kuzu_and_sqlite(home):
    app = create_app(home)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _audit(app, pilot)
        for engine in ("kuzu", "sqlite"):
            index, finding = next((i, f) for i, f in enumerate(screen.report.findings)
                                  if f.location.engine == engine)  # fmt: skip
            _cursor_to(screen, index)
            await pilot.press("enter")
            await settle(pilot)
            detail = app.screen
            assert isinstance(detail, NodeDetailScreen) and detail.detail is not None
            assert detail.ref == NodeRef(finding.location.path, finding.table, finding.id)
            assert detail.detail.properties[finding.location.key[0][0]] == finding.id
            await pilot.press("escape")
            await settle(pilot)
            assert app.screen is screen


def test_node_ref_of_edges_and_rowid_rows(tmp_path):
    rel = FindingLocation(tmp_path, "kuzu", "SIMILAR_TO", "note", (("id", "a"), ("id", "b")),
                          ("SemanticMemory", "SemanticMemory"))  # fmt: skip
    finding = audit_finding(rel)
    ref, note = node_ref(finding)
    assert ref == NodeRef(tmp_path, "SemanticMemory", "a") and "edge" in note
    rowid = FindingLocation(tmp_path, "sqlite", "notes", "body", (("rowid", 3),))
    assert node_ref(audit_finding(rowid))[0] is None


def audit_finding(where: FindingLocation):
    from memexplorer.operator.audit import AuditFinding

    return AuditFinding(str(where.path), "agent", where.table, "id", where.column, "password",
                        "password=[password:***]", where)  # fmt: skip


def test_previews_are_cut_around_their_own_marker_and_store_names_stay_apart():
    preview = "...[aws_key:AKIA***] and password=[password:***] in plain text"
    cut = trimmed(preview, "password", 32)
    assert len(cut) == 32 and "[password:***]" in cut
    root = Path("/h")
    labels = store_labels({"/h/hierarchical_memory/ops-agent/kuzu_db",
                           "/h/memory/ops-agent/kuzu_db"}, root)  # fmt: skip
    assert len(set(labels.values())) == 2 and all(len(v) <= 26 for v in labels.values())


async def test_escape_during_a_write_says_it_waits_then_closes(home):
    app = create_app(home)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _audit(app, pilot)
        screen.running = True  # as between a confirmed redaction (or undo) and its end
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen is screen
        said = [n.message for n in app._notifications]
        assert "Writing to the stores: this closes once the write has finished" in said
        screen.running = False
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, MainScreen)
