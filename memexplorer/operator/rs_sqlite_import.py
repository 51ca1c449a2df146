"""Imports into amplihack-rs's SQLite hierarchical store (``<agent>.db``), JSON or raw.

JSON goes through :func:`~.rs_sqlite_transfer.rs_import` (the Rust import's
statements, one transaction). A raw-db import makes the store a copy of another
amplihack-rs store, as the Rust raw-db import does (the old file stays as
``<agent>.db.bak``), but safely: the copy is taken with SQLite's backup API into
a private stage, a whole copy of the old store goes to ``<home>/backups``, the
``.bak`` is a hard link, and the stage is renamed over the store last, inside
the write gate, so a kill at any point leaves the old store whole at its path.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from memexplorer.memory.export_validation import precheck_import
from memexplorer.memory.import_file import check_replace_file, read_export
from memexplorer.operator.rs_sqlite_transfer import is_rs_store, rs_agent_counts, rs_import
from memexplorer.operator.transfer_common import ImportResult
from memexplorer.operator.transfer_files import keep_bak_copy, stage_folder
from memexplorer.operator.transfer_import import put_in_place
from memexplorer.operator.write_gate import write_gate
from memexplorer.storage.exceptions import ImportDataError, InvalidInputError, NotAStoreError
from memexplorer.storage.private_dirs import make_private_dirs
from memexplorer.storage.progress import TaskControl, checkpoint
from memexplorer.storage.sqlite_db import open_sqlite, open_sqlite_mode_ro

__all__ = ["import_rs_store"]

#: Files SQLite keeps beside a store; a stale one would be applied to the new file.
_SQLITE_SIDECARS = ("-journal", "-wal", "-shm")


def _import_json(
    agent: str, source: Path, store: Path, merge: bool, allow_empty: bool,
    backup_home: Path, control: TaskControl | None,
) -> ImportResult:  # fmt: skip
    if source.is_dir():
        raise ImportDataError(f"{source} is a folder, not a JSON export")
    checkpoint(control, "reading the file")
    data = read_export(source)
    precheck_import(data, merge=merge)
    if not merge:
        check_replace_file(data, allow_empty=allow_empty)
    with write_gate(store, action="import"):
        result, backup = rs_import(agent, store, data, merge=merge, backup_home=backup_home,
                                   control=control)  # fmt: skip
    counts = {
        "SemanticMemory": result["semantic_nodes_imported"],
        "EpisodicMemory": result["episodic_nodes_imported"],
        **result["edges_by_type"],
    }
    return ImportResult(agent, "json", source, store, counts, result["skipped"], 0, merge,
                        store_backup=backup)  # fmt: skip


def _copy_store(source: Path, stage: Path) -> None:
    """A consistent copy of an SQLite store (its backup API), 0600 from the first byte."""
    stage.touch(mode=0o600)
    reader = open_sqlite_mode_ro(source)
    writer = open_sqlite(stage)
    try:
        reader.backup(writer)
    finally:
        reader.close()
        writer.close()


def _import_raw(
    agent: str, source: Path, store: Path, backup_home: Path, control: TaskControl | None
) -> ImportResult:
    from memexplorer.operator.rs_sqlite_browse import RsSqliteBrowser
    from memexplorer.operator.store_backup import write_store_backup

    if source.resolve() == store.resolve():
        raise InvalidInputError(f"{source} is the agent's store itself; nothing to import")
    if not is_rs_store(source):
        raise NotAStoreError(source, "A raw-db import into an amplihack-rs SQLite store "
                             "takes another amplihack-rs SQLite store (<agent>.db)")  # fmt: skip
    counts = rs_agent_counts(source, agent)
    if not counts.get("SemanticMemory") and not counts.get("EpisodicMemory"):
        raise NotAStoreError(source, f"This store holds no memories for agent {agent!r}; "
                             "nothing was changed")  # fmt: skip
    bak = store.with_name(store.name + ".bak")
    backup = None
    with write_gate(store, action="import") as ticket:
        folder = stage_folder(store)
        try:
            checkpoint(control, "copying the store")
            _copy_store(source, folder / store.name)
            checkpoint(control, "putting the new store in place")
            if store.exists():
                browser = RsSqliteBrowser(store, writable=True)
                try:
                    backup = write_store_backup(backup_home, browser, action="import",
                                                kind="hierarchical").path  # fmt: skip
                finally:
                    browser.close()
                keep_bak_copy(store, bak, ())
            for suffix in _SQLITE_SIDECARS:
                store.with_name(store.name + suffix).unlink(missing_ok=True)
            put_in_place(folder / store.name, store, ticket)
        finally:
            shutil.rmtree(folder, ignore_errors=True)
    return ImportResult(agent, "raw-db", source, store, counts, 0, 0, False,
                        bak if bak.exists() else None, [], backup)  # fmt: skip


def import_rs_store(
    agent: str, source: Path, store: Path, *, kind: str, merge: bool, allow_empty: bool,
    backup_home: Path, control: TaskControl | None,
) -> ImportResult:  # fmt: skip
    """Import ``source`` into the agent's amplihack-rs SQLite store ``store``."""
    make_private_dirs(store.parent)  # the gate's lock file lies beside the store
    if kind == "raw-db":
        return _import_raw(agent, source, store, backup_home, control)
    return _import_json(agent, source, store, merge, allow_empty, backup_home, control)
