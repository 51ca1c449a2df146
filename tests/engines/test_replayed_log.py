"""The crashed writer's store read through the release that wrote it (ladybug 0.17.1).

The fixture's manifest (written by tests/fixtures/make_crashed_ladybug_store.py,
checked with ladybug 0.17.1 itself) says which facts are checkpointed and which
only in the log. With ladybug 0.17.1 in the engine cache every fact is read, the
log replayed on a private copy; the file and the log keep every byte.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from store_helpers import checksums

from memexplorer.cli.main import main
from memexplorer.operator.browse import open_browser
from memexplorer.operator.console import run_console_query
from memexplorer.storage.exceptions import UnreplayableLogError
from memexplorer.storage.graph_open import open_graph_store

pytestmark = pytest.mark.slow
ADD = "memexplorer engines add ladybug==0.17.1"


def _facts(manifest: dict) -> list[str]:
    return sorted(manifest["facts_at_last_checkpoint"] + manifest["facts_only_in_log"])


def test_the_release_that_wrote_it_replays_the_log_on_a_private_copy(
    crashed_writer: Path, crashed_manifest: dict, ladybug_0171_cache: Path
):
    before = checksums(crashed_writer.parent)
    with open_graph_store(crashed_writer) as graph:
        ids = [row[0] for row in graph.rows("MATCH (n:SemanticMemory) RETURN n.memory_id")]
        assert graph.path == crashed_writer
        assert graph.ladybug_version == "0.17.1"  # type: ignore[attr-defined]
        assert graph.storage_version == crashed_manifest["ladybug_storage_version"]
        copy = graph.opened_path  # type: ignore[attr-defined]
        assert copy.parent != crashed_writer.parent
        assert (copy.parent.stat().st_mode & 0o777) == 0o700
        assert graph.unreplayed_log is None
    assert sorted(ids) == _facts(crashed_manifest)
    assert not copy.parent.exists()
    assert checksums(crashed_writer.parent) == before


def test_writing_is_still_refused_with_the_one_story(crashed_writer: Path, ladybug_0171_cache):
    before = checksums(crashed_writer.parent)
    with pytest.raises(UnreplayableLogError) as raised:
        open_graph_store(crashed_writer, read_only=False)
    assert ADD in raised.value.hint
    assert checksums(crashed_writer.parent) == before


def test_stats_names_writer_and_reader(
    crashed_writer: Path, crashed_manifest: dict, ladybug_0171_cache, capsys
):
    before = checksums(crashed_writer.parent)
    assert main(["stats", str(crashed_writer), "--json"]) == 0
    [summary] = json.loads(capsys.readouterr().out)["stores"]
    assert summary["agents"]["crash-agent"]["SemanticMemory"] == len(_facts(crashed_manifest))
    assert summary["written_by"] == "ladybug 0.17.0 or 0.17.1"
    assert summary["read_by"] == "ladybug 0.17.1"
    assert "add_command" not in summary and "unreplayed_log" not in summary
    assert summary["note"] == "its writer's log (ladybug_db.wal) replayed on a private copy"
    assert main(["stats", str(crashed_writer)]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "written by ladybug 0.17.0 or 0.17.1 · read by ladybug 0.17.1" in text
    assert checksums(crashed_writer.parent) == before


def test_audit_reads_the_replayed_log_without_the_checkpoint_note(
    crashed_writer: Path, ladybug_0171_cache, capsys
):
    before = checksums(crashed_writer.parent)
    assert main(["audit", str(crashed_writer.parent), "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["findings"] == [] and payload.get("notes", {}) == {}
    assert checksums(crashed_writer.parent) == before


def test_console_queries_run_under_the_release_that_wrote_it(
    crashed_writer: Path, crashed_manifest: dict, ladybug_0171_cache
):
    before = checksums(crashed_writer.parent)
    browser = open_browser(crashed_writer)
    try:
        query = "MATCH (n:SemanticMemory) RETURN n.memory_id ORDER BY n.memory_id"
        result = run_console_query(browser, query, row_cap=100)
        assert result.data.column(0).to_pylist() == _facts(crashed_manifest)
    finally:
        browser.close()
    assert checksums(crashed_writer.parent) == before


def test_idle_workers_are_kept_per_release(crashed_writer: Path, ladybug_0171_cache, tmp_path):
    """A worker of the cached release, given back idle, never serves the pinned ladybug."""
    with open_graph_store(crashed_writer) as old:
        assert old.ladybug_version == "0.17.1"  # type: ignore[attr-defined]
    new = tmp_path / "new_db"
    with open_graph_store(new, read_only=False, create="ladybug") as store:
        assert store.ladybug_version == "0.22.0"  # type: ignore[attr-defined]
        assert store.storage_version == 49
    with open_graph_store(crashed_writer) as again:
        assert again.ladybug_version == "0.17.1"  # type: ignore[attr-defined]
