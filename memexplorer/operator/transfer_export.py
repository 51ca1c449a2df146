"""Writing one agent's hierarchical memory to a file (seed 002, "Export").

``json`` writes transfer format 1.1; ``graph`` seed 003's ``export_graph()``
shape (:mod:`.graph_shape`); ``raw-db`` copies the store file. Either
file is 0o600 in 0o700 folders, and appears whole or not at all.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from memexplorer.memory.export_json import write_export_json
from memexplorer.memory.export_pages import has_memories
from memexplorer.memory.hierarchical_export import spill_agent_export
from memexplorer.memory.hierarchical_memory import HierarchicalMemory
from memexplorer.operator.rs_sqlite_transfer import is_rs_store, read_rs_agent, rs_agent_counts
from memexplorer.operator.transfer_common import (
    SIDECARS,
    ExportResult,
    agent_counts,
    counts_of,
    probe_unlocked,
    reject_symlink,
    transfer_backend,
    transfer_format,
    transfer_store_path,
)
from memexplorer.operator.transfer_files import copy_file_atomically, copy_tree, write_atomically
from memexplorer.storage.collector import collector_paused, release_gradually
from memexplorer.storage.exceptions import InvalidInputError, StoreNotFoundError
from memexplorer.storage.graph_shape import GRAPH_SHAPE, to_graph_shape
from memexplorer.storage.names import validate_agent_name
from memexplorer.storage.private_dirs import make_private_dirs
from memexplorer.storage.progress import TaskControl

__all__ = ["export_agent_store"]


def _export_json(
    agent: str, store: Path, target: Path, control: TaskControl | None, shape: str
) -> dict[str, int]:
    """Format 1.1 read a page at a time into private run files, then written from
    them (:func:`spill_agent_export`); the graph shape, which regroups every
    record, built whole in memory. The store is closed before the file is written."""
    with tempfile.TemporaryDirectory(prefix="memexplorer-export-") as runs:
        with HierarchicalMemory(agent, store, mode="read") as memory:
            if not has_memories(memory.graph, memory.agent_name):
                raise InvalidInputError(
                    f"Agent {agent!r} has no memories in {store}; nothing was written",
                    hint="Check the agent name (memexplorer stats lists the agents of a store).",
                )
            if shape == GRAPH_SHAPE:
                data = memory.export_graph("1.1", control=control)
            else:
                data = spill_agent_export(memory.graph, memory.agent_name, Path(runs),
                                          "1.1", control)  # fmt: skip
        counts = counts_of(data)
        if shape == GRAPH_SHAPE:
            data = to_graph_shape(data)
        try:
            write_atomically(
                target, lambda handle: write_export_json(handle, data, control), control
            )
        finally:
            release_gradually(data)
    return counts


def _export_rs(
    agent: str, store: Path, target: Path, kind: str, control: TaskControl | None
) -> dict[str, int]:
    """Export from amplihack-rs's SQLite store: JSON as the Rust loaders read it,
    or a copy of the file (what the Rust raw-db export does)."""
    if kind in ("json", GRAPH_SHAPE):
        data = read_rs_agent(store, agent)
        counts = counts_of(data)
        if kind == GRAPH_SHAPE:
            data = to_graph_shape(data)
        if not counts["SemanticMemory"] and not counts["EpisodicMemory"]:
            raise InvalidInputError(
                f"Agent {agent!r} has no memories in {store}; nothing was written",
                hint="Check the agent name (memexplorer stats lists the agents of a store).",
            )
        write_atomically(target, lambda handle: write_export_json(handle, data, control), control)
        return counts
    counts = rs_agent_counts(store, agent)
    make_private_dirs(target.parent)
    copy_file_atomically(store, target, control)
    return counts


def _copy_store_file(source: Path, target: Path) -> None:
    """Copy a single-file store with its write-ahead log, if it has one."""
    copy_file_atomically(source, target)
    for suffix in SIDECARS:
        sidecar = source.with_name(source.name + suffix)
        if sidecar.is_file() and not sidecar.is_symlink():
            copy_file_atomically(sidecar, target.with_name(target.name + suffix))


def export_agent_store(
    agent: str,
    output: str | Path,
    *,
    format: str = "json",
    storage_path: str | Path | None = None,
    home: str | Path | None = None,
    control: TaskControl | None = None,
    overwrite: bool = True,
) -> ExportResult:
    """Write the agent's graph to ``output`` (format 1.1 JSON, or a copy of the store).

    ``control`` hears of each stage and may cancel until the file is put in place.
    Without ``overwrite`` an existing ``output`` is refused (the CLI's default: a
    script that names yesterday's file must not lose it without a word).
    """
    agent = validate_agent_name(agent)
    kind = transfer_format(format)
    notes = transfer_backend()
    store = transfer_store_path(agent, storage_path=storage_path, home=home)
    target = Path(output).expanduser()
    if target.is_dir():
        raise InvalidInputError(
            f"The export target {target} is a folder", hint="Name a file to write."
        )
    if not overwrite and (target.exists() or target.is_symlink()):
        raise InvalidInputError(
            f"The export target {target} already exists",
            hint="Add --force to replace it, or name another file.",
        )
    reject_symlink(store, "The store")
    if not store.exists():
        raise StoreNotFoundError(store, f"No hierarchical store for agent {agent!r}")
    if is_rs_store(store):
        counts = _export_rs(agent, store, target, kind, control)
        return ExportResult(agent, kind, store, target, target.stat().st_size, counts, notes)
    if kind in ("json", GRAPH_SHAPE):
        with collector_paused():
            counts = _export_json(agent, store, target, control, kind)
        return ExportResult(agent, kind, store, target, target.stat().st_size, counts, notes)
    warnings: list[str] = list(notes)
    make_private_dirs(target.parent)
    if store.is_dir():
        # Kuzu before 0.11 kept a store as a folder; kuzu 0.11 cannot read it,
        # but a raw copy needs no reading.
        warnings.append(f"{store} is an older folder-layout store: copied as is, not read")
        copy_tree(store, target, warnings)
        size = sum(p.stat().st_size for p in target.rglob("*") if p.is_file())
        return ExportResult(agent, kind, store, target, size, {}, warnings)
    probe_unlocked(store)
    counts = agent_counts(agent, store)
    _copy_store_file(store, target)
    return ExportResult(agent, kind, store, target, target.stat().st_size, counts, warnings)
