"""Export and import report their stages and stop cleanly when cancelled."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from store_helpers import checksums

from memexplorer.memory.hierarchical_memory import HierarchicalMemory
from memexplorer.operator.transfer import export_agent_store, import_agent_store
from memexplorer.storage.progress import OperationCancelled, ProgressStep, TaskControl

OPS = "home/.amplihack/hierarchical_memory/ops-agent"


class Recorder(TaskControl):
    """Keeps every step; cancels when a stage starting with ``stop_at`` is reached."""

    def __init__(self, stop_at: str | None = None) -> None:
        super().__init__(self.steps_append)
        self.steps: list[ProgressStep] = []
        self.stop_at = stop_at

    def steps_append(self, step: ProgressStep) -> None:
        self.steps.append(step)
        if self.stop_at and step.stage.startswith(self.stop_at):
            self.cancel()

    def stages(self) -> list[str]:
        return list(dict.fromkeys(step.stage for step in self.steps))


def _small_chunks(monkeypatch):
    monkeypatch.setattr("memexplorer.memory.export_json.RECORDS_PER_STEP", 20)


def test_export_reports_each_table_then_the_file(reference_stores, tmp_path, monkeypatch):
    _small_chunks(monkeypatch)
    control = Recorder()
    out = tmp_path / "ops.json"
    export_agent_store("ops-agent", out, storage_path=reference_stores / OPS, control=control)
    stages = control.stages()
    assert stages[:2] == ["reading SemanticMemory", "reading EpisodicMemory"]
    assert "reading SUPERSEDES" in stages and "reading TRANSITIONED_TO" in stages
    assert stages[-2:] == ["writing the file", "putting the file in place"]
    reads = [s for s in control.steps if s.unit == "tables"]
    assert [s.done for s in reads] == list(range(len(reads)))
    assert {s.total for s in reads} == {len(reads)}
    data = json.loads(out.read_text())
    records = sum(len(v) for v in data.values() if isinstance(v, list))
    written = [s for s in control.steps if s.stage == "writing the file"]
    done = [s.done for s in written]
    assert done == sorted(set(done)) and done[-1] == records and len(done) >= records // 20
    assert {s.total for s in written} == {records}
    # One record a line, so an export greps and diffs a node or edge at a time.
    lines = out.read_text().splitlines()
    assert sum(1 for line in lines if line.startswith('    {"memory_id"')) == 84 + 22
    assert len(data["semantic_nodes"]) == 84


@pytest.mark.parametrize("stop_at", ["reading EpisodicMemory", "writing the file"])
def test_a_cancelled_export_writes_nothing(reference_stores, tmp_path, monkeypatch, stop_at):
    _small_chunks(monkeypatch)
    before = checksums(reference_stores / OPS)
    out = tmp_path / "exports" / "ops.json"
    with pytest.raises(OperationCancelled, match="Cancelled while"):
        export_agent_store(
            "ops-agent", out, storage_path=reference_stores / OPS, control=Recorder(stop_at)
        )
    assert not out.exists()
    assert not list(tmp_path.rglob("*.tmp"))
    assert checksums(reference_stores / OPS) == before


def _export(reference_stores: Path, tmp_path: Path) -> Path:
    out = tmp_path / "ops.json"
    export_agent_store("ops-agent", out, storage_path=reference_stores / OPS)
    return out


def test_import_reports_rows_written_up_to_the_total(reference_stores, tmp_path):
    source = _export(reference_stores, tmp_path)
    data = json.loads(source.read_text())
    total = sum(len(v) for k, v in data.items() if k.endswith(("_nodes", "_edges")))
    control = Recorder()
    store = tmp_path / "new" / "kuzu_db"
    result = import_agent_store("copy-agent", source, storage_path=store, control=control)
    assert result.counts["SemanticMemory"] == 84
    stages = control.stages()
    assert stages[0] == "reading the file" and stages[-1] == "putting the new store in place"
    assert "writing SemanticMemory" in stages and "writing SIMILAR_TO" in stages
    rows = [s for s in control.steps if s.stage.startswith("writing ")]
    assert [s.done for s in rows] == sorted(s.done for s in rows)
    assert rows[-1].done == total and {s.total for s in rows} == {total}


@pytest.mark.parametrize("stop_at", ["copying the store", "writing SemanticMemory", "saving"])
def test_a_cancelled_import_changes_nothing(reference_stores, tmp_path, stop_at):
    source = _export(reference_stores, tmp_path)
    store = reference_stores / "shared_two_agents" / "kuzu_db"  # copied first: two agents
    before = checksums(store.parent)
    with pytest.raises(OperationCancelled):
        import_agent_store(
            "triage-bot", source, storage_path=store, merge=True, control=Recorder(stop_at)
        )
    assert checksums(store.parent) == before
    assert sorted(p.name for p in store.parent.iterdir()) == sorted(before)


def test_a_cancelled_import_into_a_new_store_leaves_no_store(reference_stores, tmp_path):
    source = _export(reference_stores, tmp_path)
    store = tmp_path / "fresh" / "kuzu_db"
    with pytest.raises(OperationCancelled):
        import_agent_store("copy-agent", source, storage_path=store, control=Recorder("writing"))
    assert not store.exists()
    with HierarchicalMemory("copy-agent", tmp_path / "other") as memory:
        assert memory.get_statistics()["semantic_nodes"] == 0
