"""Clean then restore gives back every row and edge, for every store kind."""

from __future__ import annotations

import sqlite3
import stat
from pathlib import Path

import pytest

from memexplorer.operator.backup_records import BackupError, list_backups, read_backup
from memexplorer.operator.backups import restore_backup, write_backup
from memexplorer.operator.clean import clean_store, clean_target, preview_clean
from memexplorer.operator.clean_selection import BadSelectionError, Selection
from memexplorer.operator.graph_rows import save_nodes
from memexplorer.operator.sqlite_rows import save_rows
from memexplorer.storage.graphdb import KuzuStore

from .dump import dump_store, row_count

HIER = "home/.amplihack/hierarchical_memory/ops-agent/kuzu_db"
SHARED = "shared_two_agents/kuzu_db"
COGNITIVE = "cognitive_db"
EXP_SQLITE = "home/.amplihack/memory/ops-agent/experiences.db"
EXP_KUZU = "home/.amplihack/memory/ops-agent/kuzu_db"
EMBEDDING = [i / 1000 - 0.3 for i in range(768)]


def _with_embedding(path: Path) -> None:
    """Add a fact with a real DOUBLE[768] embedding and an edge (the fixture's are
    null; kuzu refuses SET on a vector-indexed column, so it is created whole)."""
    with KuzuStore(path, read_only=False) as graph:
        graph.execute(
            "CREATE (n:SemanticMemory {node_id: 'sem_embedded', agent_id: 'ops-agent', "
            "concept: 'vectors', content: 'has an embedding', confidence: 0.5, "
            "embedding: CAST($e AS DOUBLE[768]), created_at: 1795360000})",
            {"e": EMBEDDING},
        )
        graph.execute(
            "MATCH (a:SemanticMemory {node_id: 'sem_embedded'}), (b:SemanticMemory) "
            "WHERE b.node_id <> 'sem_embedded' WITH a, b LIMIT 1 "
            "CREATE (a)-[:SIMILAR_TO {similarity_score: 0.75}]->(b)"
        )


def _fts(path: Path, query: str) -> list[str]:
    db = sqlite3.connect(path)
    try:
        rows = db.execute(
            "SELECT experience_id FROM experiences_fts WHERE experiences_fts MATCH ?", (query,)
        )
        return sorted(row[0] for row in rows)
    finally:
        db.close()


CASES = [
    (HIER, Selection("*")),
    (SHARED, Selection("*", agent="triage-bot")),
    (COGNITIVE, Selection("*", agent="ops-agent")),
    (COGNITIVE, Selection("*", table="SemanticMemory")),
    (EXP_SQLITE, Selection("fail*")),
    (EXP_KUZU, Selection("*", agent="ops-agent", older_than_days=0)),
]


@pytest.mark.parametrize(("store", "selection"), CASES, ids=lambda v: str(v)[:40])
def test_clean_then_restore_gives_back_the_store(reference_stores, tmp_path, store, selection):
    path = reference_stores / store
    if store == COGNITIVE:
        _with_embedding(path)
    before = dump_store(path)
    searched = _fts(path, "rollback") if store == EXP_SQLITE else None
    target = clean_target(path)
    preview = preview_clean(target, selection)
    assert preview.rows > 0
    result = clean_store(target, selection, home=tmp_path / "home")
    assert result.preview.counts == preview.counts
    after_clean = dump_store(path)
    assert row_count(after_clean) == row_count(before) - preview.rows - preview.edge_count
    restored = restore_backup(result.backup.path)
    assert restored.restored == preview.rows + preview.edge_count
    assert restored.already_there == 0
    assert dump_store(path) == before
    if searched is not None:
        assert _fts(path, "rollback") == searched


def test_flat_stores_clean_by_session_and_restore(flat_store, tmp_path):
    before = dump_store(flat_store.path)
    target = clean_target(backend=flat_store.backend, home=flat_store.home)
    preview = preview_clean(target, Selection("sess-?l*"))
    # sess-alpha holds four memories, one of them expired: all go with the session.
    assert (
        sum(n for t, n in preview.counts.items() if t not in ("sessions", "Session"))
        - (preview.counts.get("session_agents", 0))
        == 4
    )
    assert preview.agents == ["architect", "builder"]
    result = clean_store(target, Selection("sess-?l*"), home=tmp_path / "h")
    sessions = {s.session_id for s in _sessions(flat_store)}
    assert sessions == {"sess-beta", "sess-gamma"}
    restore_backup(result.backup.path)
    assert dump_store(flat_store.path) == before


def _sessions(flat_store):
    from memexplorer.memory.flat_store import open_flat_store

    with open_flat_store((flat_store.backend, flat_store.path)) as store:
        return store.list_sessions()


def test_restore_twice_reports_rows_already_there(reference_stores, tmp_path):
    path = reference_stores / HIER
    before = dump_store(path)
    result = clean_store(clean_target(path), Selection("*"), home=tmp_path)
    restore_backup(result.backup.path)
    again = restore_backup(result.backup.path)
    assert again.restored == 0
    assert again.already_there == sum(result.backup.counts.values())
    assert dump_store(path) == before
    (record,) = list_backups(tmp_path)
    assert record.restored and record.action == "clean" and record.kind == "hierarchical"
    assert record.counts == {
        "EpisodicMemory": 22, "SemanticMemory": 84,
        "DERIVES_FROM": 27, "SIMILAR_TO": 164, "SUPERSEDES": 21,
    }  # fmt: skip


def test_backup_holds_exactly_the_selection_with_private_permissions(reference_stores, tmp_path):
    path = reference_stores / SHARED
    result = clean_store(clean_target(path), Selection("*", agent="escalation-bot"), home=tmp_path)
    record, tables = read_backup(result.backup.path)
    manifest_agents = record.agents
    assert manifest_agents == ["escalation-bot"]
    for table in tables:
        if table.kind == "node":
            assert {row["agent_id"] for row in table.rows} == {"escalation-bot"}
    assert record.selection["agent"] == "escalation-bot"
    assert record.path.name.endswith(f"-clean-{record.id}")
    folder = tmp_path / "backups"
    for item in (folder, record.path):
        assert stat.S_IMODE(item.stat().st_mode) == 0o700
    for item in record.path.iterdir():
        assert stat.S_IMODE(item.stat().st_mode) == 0o600


@pytest.mark.parametrize("how", ["file", "symlink"])
def test_failed_backup_deletes_nothing(reference_stores, tmp_path, how):
    path = reference_stores / HIER
    before = dump_store(path)
    home = tmp_path / "home"
    home.mkdir()
    if how == "file":
        (home / "backups").write_text("not a folder")
    else:
        (tmp_path / "elsewhere").mkdir()
        (home / "backups").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(BackupError):
        clean_store(clean_target(path), Selection("*"), home=home)
    assert dump_store(path) == before
    assert list((tmp_path / "elsewhere").iterdir() if how == "symlink" else []) == []


def test_preview_changes_nothing(reference_stores):
    from store_helpers import checksums

    for store in (HIER, EXP_SQLITE, COGNITIVE):
        path = reference_stores / store
        sums = checksums(path.parent)
        preview_clean(clean_target(path), Selection("*"))
        assert checksums(path.parent) == sums


def test_selection_filters(reference_stores):
    target = clean_target(reference_stores / HIER)
    everything = preview_clean(target, Selection("*"))
    assert preview_clean(target, Selection("*", older_than_days=100_000)).rows == 0
    assert preview_clean(target, Selection("*", older_than_days=0)).rows == everything.rows
    semantic = preview_clean(target, Selection("*", table="SemanticMemory"))
    assert semantic.counts == {"SemanticMemory": 84}
    ids = [row["id"] for row in semantic.sample[:3]]
    picked = preview_clean(target, Selection("*", ids=tuple(ids)))
    assert picked.counts == {"SemanticMemory": 3}
    concept = semantic.sample[0]["label"]
    by_concept = preview_clean(target, Selection(concept.replace(concept[0], "?", 1)))
    assert by_concept.counts["SemanticMemory"] >= 1
    assert all(row["label"][1:] == concept[1:] for row in by_concept.sample)
    assert "EpisodicMemory" not in by_concept.counts  # no concept column


@pytest.mark.parametrize(
    ("selection", "message"),
    [
        ({"table": "Nope"}, "No table 'Nope'"),
        ({"agent": "ghost"}, "No agent 'ghost'"),
    ],
)
def test_unknown_table_or_agent_is_refused(reference_stores, selection, message):
    with pytest.raises(BadSelectionError, match=message):
        preview_clean(clean_target(reference_stores / HIER), Selection("*", **selection))


@pytest.mark.parametrize("pattern", ["", "  ", "[ab]*", "x{1,2}", "a\x00b"])
def test_bad_glob_is_refused(pattern):
    with pytest.raises(BadSelectionError):
        Selection(pattern)


def test_flat_store_refuses_graph_selectors(flat_store):
    target = clean_target(backend=flat_store.backend, home=flat_store.home)
    with pytest.raises(BadSelectionError, match="--agent does not apply"):
        preview_clean(target, Selection("*", agent="builder"))


def test_replace_mode_puts_changed_values_back(reference_stores, tmp_path):
    """The redaction path: back up rows about to change, change them, restore."""
    path = reference_stores / HIER
    before = dump_store(path)
    with KuzuStore(path, read_only=False) as graph:
        ids = [r[0] for r in graph.rows("MATCH (n:SemanticMemory) RETURN n.memory_id LIMIT 5")]
        saved = save_nodes(graph, "SemanticMemory", ids)
        graph.execute(
            "UNWIND $ids AS i MATCH (n:SemanticMemory {memory_id: i}) "
            "SET n.content = '[REDACTED]', n.entity_name = NULL",
            {"ids": ids},
        )
    record = write_backup(
        tmp_path, action="redact", store=path, kind="hierarchical", engine="kuzu",
        tables=[saved], restore_mode="replace",
    )  # fmt: skip
    assert dump_store(path) != before
    result = restore_backup(record.path)
    assert result.tables["SemanticMemory"].replaced == 5
    assert dump_store(path) == before


def test_replace_mode_for_sqlite_rows(reference_stores, tmp_path):
    path = reference_stores / EXP_SQLITE
    before = dump_store(path)
    db = sqlite3.connect(path, isolation_level=None)
    ids = [r[0] for r in db.execute("SELECT experience_id FROM experiences LIMIT 4")]
    saved = save_rows(db, "experiences", "experience_id", ids)
    db.execute(
        f"UPDATE experiences SET context = '[REDACTED]' WHERE experience_id IN "
        f"({', '.join('?' * len(ids))})",
        ids,
    )
    db.close()
    record = write_backup(
        tmp_path, action="redact", store=path, kind="experience", engine="sqlite",
        tables=[saved], restore_mode="replace",
    )  # fmt: skip
    restore_backup(record.path)
    assert dump_store(path) == before
