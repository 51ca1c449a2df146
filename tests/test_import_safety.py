"""A replace import never surprises: it refuses files that would silently wipe or
drop data, keeps a restorable copy of what it replaces, never upgrades an older
LadybugDB store, and never leaves the agent without a store."""

from __future__ import annotations

import gzip
import json
import os
import stat
from importlib.util import find_spec
from pathlib import Path

import pytest
from store_helpers import checksums

from memexplorer.cli.main import main
from memexplorer.operator import transfer_files
from memexplorer.operator.backup_records import list_backups
from memexplorer.operator.backups import restore_backup
from memexplorer.operator.transfer import export_agent_store, import_agent_store
from memexplorer.operator.transfer_common import agent_counts
from memexplorer.storage.exceptions import ImportDataError, StoreUpgradeRequired

HOME = "home/.amplihack"
OPS = f"{HOME}/hierarchical_memory/ops-agent/kuzu_db"
#: LadybugDB stores written by ladybug 0.21.2 (storage version 47): one with a table
#: of its own, one a hierarchical store of ``old-agent`` alone (whose replace import
#: would start from a fresh file in the installed version, were it not refused).
OLD_LADYBUG = {
    "other-tables": Path(__file__).parent / "engine" / "data" / "ladybug_v47.lbug.gz",
    "agent-alone": Path(__file__).parent / "engine" / "data" / "ladybug_v47_hierarchical.lbug.gz",
}


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def _export(reference_stores: Path, tmp_path: Path) -> tuple[Path, dict]:
    out = tmp_path / "ops.json"
    export_agent_store("ops-agent", out, storage_path=reference_stores / OPS)
    return out, json.loads(out.read_text())


def test_a_file_with_no_nodes_does_not_wipe_the_agent(reference_stores, tmp_path, capsys):
    store = reference_stores / OPS
    _, data = _export(reference_stores, tmp_path)
    empty = tmp_path / "empty.json"
    empty.write_text(json.dumps({**data, "semantic_nodes": [], "episodic_nodes": [],
                                 **{k: [] for k in data if k.endswith("_edges")}}))  # fmt: skip
    before = checksums(store)
    assert main(["import", "ops-agent", str(empty), "--storage-path", str(store)]) == 2
    assert "holds no nodes" in capsys.readouterr().err
    assert checksums(store) == before
    code = main(["import", "ops-agent", str(empty), "--storage-path", str(store), "--allow-empty"])
    assert code == 0
    assert agent_counts("ops-agent", store)["SemanticMemory"] == 0


@pytest.mark.parametrize("missing", ["similar_to_edges", "transitioned_to_edges", "episodic_nodes"])
def test_a_file_missing_a_list_is_refused_naming_it(reference_stores, tmp_path, capsys, missing):
    store = reference_stores / OPS
    _, data = _export(reference_stores, tmp_path)
    del data[missing]
    if missing == "episodic_nodes":
        data["derives_from_edges"] = []
    partial = tmp_path / "partial.json"
    partial.write_text(json.dumps(data))
    before = checksums(store)
    assert main(["import", "ops-agent", str(partial), "--storage-path", str(store)]) == 2
    err = capsys.readouterr().err
    assert missing in err and "--allow-empty" in err
    assert checksums(store) == before
    # Merging adds what the file has: nothing is removed, so nothing is refused.
    assert main(["import", "ops-agent", str(partial), "--storage-path", str(store), "--merge"]) == 0
    with pytest.raises(ImportDataError, match=missing):
        import_agent_store("ops-agent", partial, storage_path=store)
    counts = import_agent_store("ops-agent", partial, storage_path=store, allow_empty=True).counts
    assert counts["SemanticMemory"] == 84


def test_every_replace_import_keeps_a_restorable_backup(reference_stores, tmp_path, capsys):
    home = reference_stores / HOME
    store = home / "hierarchical_memory" / "ops-agent" / "kuzu_db"
    research = tmp_path / "research.json"
    export_agent_store("research-agent", research, home=home)
    before = agent_counts("ops-agent", store)
    original = checksums(store)["kuzu_db"]
    assert main(["import", "ops-agent", str(research), "--home", str(home), "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert agent_counts("ops-agent", store) != before
    (record,) = list_backups(home)
    assert result["store_backup"] == str(record.path)
    assert (record.action, record.store, record.kind) == ("import", store, "hierarchical")
    assert _mode(record.path) == 0o700
    assert {_mode(p) for p in record.path.iterdir()} == {0o600}
    assert main(["backups", "--home", str(home), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)[0]["action"] == "import"
    restore_backup(record.path)
    assert checksums(store)["kuzu_db"] == original
    # A merge removes nothing, so it needs no backup.
    assert main(["import", "ops-agent", str(research), "--home", str(home), "--merge"]) == 0
    assert len(list_backups(home)) == 1


def test_a_raw_db_import_keeps_a_restorable_backup_and_a_linked_bak(reference_stores, tmp_path):
    home = reference_stores / HOME
    store = home / "hierarchical_memory" / "ops-agent" / "kuzu_db"
    source = home / "hierarchical_memory" / "research-agent" / "kuzu_db"
    old_inode, original = store.stat().st_ino, checksums(store)["kuzu_db"]
    copy = tmp_path / "research.kuzu"
    copy.write_bytes(source.read_bytes())
    data = json.loads((reference_stores / "exports" / "research-agent.export_to_json.json")
                      .read_text())  # fmt: skip
    result = import_agent_store(
        data["agent_name"], copy, format="raw-db", storage_path=store, home=home
    )
    bak = store.with_name("kuzu_db.bak")
    assert result.backup == bak and bak.stat().st_ino == old_inode  # a link, not a move
    assert store.stat().st_ino != old_inode and _mode(store) == 0o600
    (record,) = list_backups(home)
    assert result.store_backup == record.path
    restore_backup(record.path)
    assert checksums(store)["kuzu_db"] == original


def test_the_raw_db_stage_is_private_before_its_first_byte(reference_stores, tmp_path, monkeypatch):
    home = reference_stores / HOME
    store = home / "hierarchical_memory" / "ops-agent" / "kuzu_db"
    source = home / "hierarchical_memory" / "research-agent" / "kuzu_db"
    seen: list[tuple[int, int, bool]] = []
    real_sendfile = os.sendfile

    def sendfile(out: int, in_fd: int, offset: int, count: int) -> int:
        target = Path(os.readlink(f"/proc/self/fd/{out}"))
        seen.append((stat.S_IMODE(os.fstat(out).st_mode), _mode(target.parent), store.exists()))
        return real_sendfile(out, in_fd, offset, count)

    monkeypatch.setattr(transfer_files.os, "sendfile", sendfile)
    import_agent_store("research-agent", source, format="raw-db", storage_path=store, home=home)
    assert seen and all(mode == 0o600 for mode, _, _ in seen)
    assert all(folder == 0o700 for _, folder, _ in seen)
    assert all(present for _, _, present in seen)  # the old store stays until the rename
    assert not [p for p in store.parent.iterdir() if ".import-" in p.name]


def test_a_failed_raw_db_copy_leaves_the_old_store_and_no_stage(
    reference_stores, tmp_path, monkeypatch, capsys
):
    home = reference_stores / HOME
    store = home / "hierarchical_memory" / "ops-agent" / "kuzu_db"
    source = home / "hierarchical_memory" / "research-agent" / "kuzu_db"
    before = checksums(store.parent)

    def full(*_args: object) -> int:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(transfer_files.os, "sendfile", full)
    code = main(["import", "research-agent", str(source), "--format", "raw-db",
                 "--storage-path", str(store), "--home", str(home)])  # fmt: skip
    assert code == 1
    assert "the disk is full" in capsys.readouterr().err
    assert checksums(store.parent) == before
    assert list_backups(home) == []


@pytest.mark.skipif(
    find_spec("ladybug") is None and not os.environ.get("CI"),
    reason="needs the ladybug extra: pip install 'memexplorer[ladybug]'",
)
@pytest.mark.parametrize("merge", [False, True])
@pytest.mark.parametrize("kind", OLD_LADYBUG)
def test_an_older_ladybug_store_is_never_upgraded_by_an_import(
    reference_stores, tmp_path, capsys, merge, kind
):
    store = tmp_path / "old-agent" / "ladybug_db"
    store.parent.mkdir()
    store.write_bytes(gzip.decompress(OLD_LADYBUG[kind].read_bytes()))
    before = store.read_bytes()
    export, _ = _export(reference_stores, tmp_path)
    with pytest.raises(StoreUpgradeRequired) as caught:
        import_agent_store("old-agent", export, storage_path=store, merge=merge)
    assert (caught.value.found, caught.value.installed) == (47, 49)
    assert caught.value.path == store
    args = ["import", "old-agent", str(export), "--storage-path", str(store)]
    assert main(args + (["--merge"] if merge else [])) == 1
    assert "storage version 47" in capsys.readouterr().err
    assert store.read_bytes() == before
    assert sorted(p.name for p in store.parent.iterdir()) == ["ladybug_db"]


def test_agent_names_are_normalised_once_for_key_and_folder(reference_stores, tmp_path, capsys):
    home = tmp_path / "amplihack"
    export, _ = _export(reference_stores, tmp_path)
    assert main(["import", "  ops-agent ", str(export), "--home", str(home)]) == 0
    assert sorted(p.name for p in (home / "hierarchical_memory").iterdir()) == ["ops-agent"]
    store = home / "hierarchical_memory" / "ops-agent"
    assert agent_counts("ops-agent", store)["SemanticMemory"] == 84
    for bad in ("ops-agent\n", "ops\tagent", "../ops", "a/b"):
        assert main(["import", bad, str(export), "--home", str(home)]) == 2
        assert "Invalid agent name" in capsys.readouterr().err
    assert sorted(p.name for p in (home / "hierarchical_memory").iterdir()) == ["ops-agent"]
