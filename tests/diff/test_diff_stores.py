"""diff against real stores: the library's own 1.0 export against its store, a store
against its own backup after a clean, and reading that never changes a byte."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

from memexplorer.cli.main import main
from memexplorer.operator.clean import clean_store, clean_target
from memexplorer.operator.clean_selection import Selection
from memexplorer.operator.diff_report import diff_memory
from memexplorer.operator.store_backup import write_closed_store_backup

HOME = "home/.amplihack"
STORE = f"{HOME}/hierarchical_memory/ops-agent/kuzu_db"
EXPORT = "exports/ops-agent.export_to_json.json"


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _folder_digests(folder: Path) -> dict[str, str]:
    return {
        str(p.relative_to(folder)): _digest(p) for p in sorted(folder.rglob("*")) if p.is_file()
    }


def test_the_library_export_matches_its_store(reference_stores: Path) -> None:
    """The reference library's export_to_json (format 1.0) and the store it wrote hold
    the same memory: no differences, and TRANSITIONED_TO (not in 1.0) not compared."""
    store = reference_stores / STORE
    before = _digest(store)
    report = diff_memory(reference_stores / EXPORT, store)
    assert (report.a.kind, report.a.agent, report.b.agent) == ("export", "ops-agent", "ops-agent")
    assert report.diff.empty
    assert "A has no transitioned_to_edges" in report.diff.table("TRANSITIONED_TO").skipped
    assert _digest(store) == before


def test_a_store_against_its_backup_after_a_clean(reference_stores: Path) -> None:
    """Cleaning the 'service ports' facts: from the backup to the store, exactly those
    facts and the edges touching them are removed (read from the library's export)."""
    library = json.loads((reference_stores / EXPORT).read_text())
    ports = sorted(
        n["memory_id"] for n in library["semantic_nodes"] if n["concept"] == "service ports"
    )
    assert len(ports) == 6

    def touching(key: str) -> list[tuple[str, str]]:
        return sorted(
            (e["source_id"], e["target_id"])
            for e in library[key]
            if e["source_id"] in ports or e["target_id"] in ports
        )

    store = reference_stores / STORE
    result = clean_store(
        clean_target(store),
        Selection("service ports", agent="ops-agent"),
        home=reference_stores / HOME,
    )
    backup = result.backup.path
    store_bytes, backup_bytes = _digest(store), _folder_digests(backup)
    report = diff_memory(backup, store)
    assert (report.a.kind, report.a.agent) == ("backup", "ops-agent")
    facts = report.diff.table("SemanticMemory")
    assert sorted(n["memory_id"] for n in facts.removed) == ports
    assert facts.added == [] and facts.changed == []
    for rel, key in (
        ("SIMILAR_TO", "similar_to_edges"),
        ("SUPERSEDES", "supersedes_edges"),
        ("DERIVES_FROM", "derives_from_edges"),
    ):
        table = report.diff.table(rel)
        removed = sorted((e["source_id"], e["target_id"]) for e in table.removed)
        assert removed == touching(key), rel
        assert table.added == []
    assert report.diff.table("EpisodicMemory").empty
    assert _digest(store) == store_bytes
    assert _folder_digests(backup) == backup_bytes
    # The other way round the same facts come back as added.
    back = diff_memory(store, backup).diff.table("SemanticMemory")
    assert sorted(n["memory_id"] for n in back.added) == ports


def test_a_store_side_reads_a_copy_of_the_store_unchanged(
    reference_stores: Path, tmp_path: Path
) -> None:
    store = reference_stores / STORE
    copy = tmp_path / "hierarchical_memory" / "ops-agent" / "kuzu_db"
    copy.parent.mkdir(parents=True)
    shutil.copy2(store, copy)
    before = _digest(copy)
    assert diff_memory(store, copy).diff.empty
    assert _digest(copy) == before


def test_a_store_against_its_whole_store_backup(reference_stores: Path, capsys) -> None:
    """A whole-store copy (as taken before a console write or an upgrade), then a clean:
    from the copy to the store, the cleaned facts are removed (the library's export
    says which), and the copy's bytes and the store's are unchanged by reading."""
    library = json.loads((reference_stores / EXPORT).read_text())
    slo = sorted(n["memory_id"] for n in library["semantic_nodes"] if n["concept"] == "service slo")
    assert len(slo) == 8
    store, home = reference_stores / STORE, reference_stores / HOME
    whole = write_closed_store_backup(home, store, engine="kuzu", kind="hierarchical",
                                      action="upgrade")  # fmt: skip
    clean_store(clean_target(store), Selection("service slo", agent="ops-agent"), home=home)
    store_bytes, backup_bytes = _digest(store), _folder_digests(whole.path)
    assert main(["diff", str(whole.path), str(store), "--json"]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert (answer["a"]["kind"], answer["a"]["agent"]) == ("backup", "ops-agent")
    facts = answer["tables"][0]
    assert facts["table"] == "SemanticMemory"
    assert sorted(n["memory_id"] for n in facts["removed"]) == slo
    assert facts["added"] == [] and facts["changed"] == []
    assert _digest(store) == store_bytes and _folder_digests(whole.path) == backup_bytes
