"""Rewrite a graph store into a fresh file, so deleted and overwritten values leave it.

Kuzu and LadybugDB never free a value in place: a deleted row is tombstoned
and an overwritten string stays in its old page, so after a redaction or a
clean ``grep -a`` still finds the old text in the file. Compaction reads every
row of every table (all agents), builds a new file of the same engine and
storage version beside the store with the same schema and indexes, checks the
new file holds exactly the same rows (count and checksum per table) and the
same catalog, and only then renames it over the store. Until that rename the
store is untouched; if anything differs, the new file is deleted.

A LadybugDB store of an older storage version than the installed ladybug
writes cannot be rewritten at its own version, so it is refused.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import secrets
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memexplorer.operator.row_digest import TableDigest, digest_rows, read_tables, store_digest
from memexplorer.storage.atomic_files import replace_file
from memexplorer.storage.exceptions import CompactionError, StoreLockedError
from memexplorer.storage.graph_open import (
    open_graph_store,
    require_graph_readable,
    require_replayable,
)
from memexplorer.storage.graph_schema_copy import catalog_snapshot, schema_script
from memexplorer.storage.graph_store import GraphStore
from memexplorer.storage.stores import sniff, stage_path

__all__ = ["CompactionResult", "compact_graph_store"]

#: Files an engine keeps beside a store while it is open.
_SIDECARS = (".wal", ".lock", ".shadow", ".tmp")


@dataclass
class CompactionResult:
    """What a compaction rewrote: sizes before and after, and the rows per table."""

    store: Path
    engine: str
    storage_version: int | None
    bytes_before: int
    bytes_after: int
    tables: dict[str, int] = field(default_factory=dict)
    #: The new file was checked to hold the same rows (counts and checksums) and catalog.
    verified: bool = False
    seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "store": str(self.store),
            "engine": self.engine,
            "storage_version": self.storage_version,
            "bytes_before": self.bytes_before,
            "bytes_after": self.bytes_after,
            "rows": self.tables,
            "rows_verified": self.verified,
            "seconds": round(self.seconds, 3),
        }


def _refuse_old_ladybug(graph: GraphStore) -> None:
    installed = getattr(graph, "installed_storage_version", None)
    if graph.engine == "ladybug" and graph.storage_version != installed:
        raise CompactionError(
            graph.path,
            f"This LadybugDB store has storage version {graph.storage_version}; the installed "
            f"ladybug writes version {installed}, so it cannot be rewritten at its own version",
            hint="Nothing was changed. Compact it with the ladybug release that wrote it, "
            "or upgrade it first (the app's writing switch asks and keeps a copy).",
        )


def _copy_into(source: GraphStore, target: GraphStore) -> dict[str, TableDigest]:
    """Build the schema, load every table, add the indexes; the digest of what was read."""
    script = schema_script(source)
    for statement in script.tables:
        target.execute(statement)
    pending: dict[str, Future[TableDigest]] = {}
    # Hashing what was read runs beside the engine's load of it (the engine
    # releases the GIL). Node tables come first, so every rel's endpoints exist.
    with ThreadPoolExecutor(max_workers=1) as pool:
        for rows in read_tables(source):
            pending[rows.label] = pool.submit(digest_rows, rows.data)
            if rows.data.num_rows:
                target.copy_arrow(rows.name, rows.data, rows.pair)
        digests = {label: future.result() for label, future in pending.items()}
    for statement in script.indexes:
        target.execute(statement)
    return digests


def _remove_new_file(new: Path) -> None:
    for path in (new, *(new.with_name(new.name + s) for s in _SIDECARS)):
        with contextlib.suppress(FileNotFoundError):
            path.unlink()


def _verify(path: Path, new: Path, expected: dict[str, TableDigest], catalog: dict) -> None:
    with open_graph_store(new) as copy:
        found = store_digest(copy)
        copied_catalog = catalog_snapshot(copy)
    if copied_catalog != catalog:
        raise CompactionError(
            path, "The rewritten store's schema or indexes differ from the store's"
        )
    if found != expected:
        differing = sorted(
            name for name in set(found) | set(expected) if found.get(name) != expected.get(name)
        )
        raise CompactionError(
            path, f"The rewritten store's rows differ from the store's ({', '.join(differing)})"
        )


@contextlib.contextmanager
def _writers_kept_out(path: Path) -> Iterator[None]:
    """Hold a shared lock on the store's file (the engines lock it with fcntl) from the
    last check to the rename: an agent opening it for writing meanwhile is refused by
    its engine ("Could not set lock") instead of writing into the file being replaced.
    Readers still open it."""
    descriptor = os.open(path, os.O_RDONLY)
    try:
        try:
            fcntl.lockf(descriptor, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except OSError:
            raise StoreLockedError(
                path, "A writer opened the store while it was being rewritten"
            ) from None
        yield
    finally:
        os.close(descriptor)


def _swap(path: Path, new: Path) -> None:
    """Rename the new file over the store, with the store's permission bits, durably."""
    replace_file(new, path, mode=path.stat().st_mode & 0o7777)


def compact_graph_store(
    path: str | Path, *, before_swap: Callable[[], None] | None = None
) -> CompactionResult:
    """Rewrite the Kuzu or LadybugDB store at ``path`` into a fresh file and swap it in.

    The caller holds the store's write lock; ``before_swap`` runs right before the
    rename (the lock's check that nobody changed the store meanwhile). Raises
    :class:`CompactionError`, leaving the store as it was, when the store cannot
    be rewritten or the rewritten file would differ.
    """
    started = time.perf_counter()
    path = Path(path)
    fmt = sniff(path)
    require_graph_readable(fmt)
    if fmt.engine not in ("kuzu", "ladybug") or fmt.layout != "file":
        raise CompactionError(
            path, f"Only single-file graph stores are compacted; this is {fmt.label}"
        )
    require_replayable(fmt)
    wal = path.with_name(path.name + ".wal")
    if wal.exists():
        raise CompactionError(
            path,
            "A write-ahead log lies beside the store: a writer has it open or stopped "
            "without closing",
            hint="Nothing was changed. Stop the writer (or let it finish) and compact again.",
        )
    new = stage_path(path, "compact", secrets.token_hex(4))
    bytes_before = path.stat().st_size
    try:
        with open_graph_store(path) as source:
            _refuse_old_ladybug(source)
            catalog = catalog_snapshot(source)
            with open_graph_store(new, read_only=False, create=fmt.engine) as target:  # type: ignore[arg-type]
                expected = _copy_into(source, target)
            version = source.storage_version
        _verify(path, new, expected, catalog)
        with _writers_kept_out(path):
            if before_swap is not None:
                before_swap()
            _swap(path, new)
    except BaseException:
        _remove_new_file(new)
        raise
    return CompactionResult(
        store=path,
        engine=fmt.engine,
        storage_version=version,
        bytes_before=bytes_before,
        bytes_after=path.stat().st_size,
        tables={name: digest.rows for name, digest in sorted(expected.items())},
        verified=True,
        seconds=time.perf_counter() - started,
    )
