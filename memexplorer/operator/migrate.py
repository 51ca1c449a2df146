"""Copy a HierarchicalMemory store to a new store of the other engine.

Kuzu 0.11.3 cannot open a LadybugDB file and ladybug cannot open a Kuzu one,
so moving a store between the eras goes through the engine's own export and
import: each agent of the source is exported (format 1.1) and imported into a
new file written with the other engine. The source is only ever opened
read-only; the new store is written, inside the target's write gate, under a
temporary name beside the target and linked into place, so a failure leaves no
half-written target. The new store is then reopened and its counts, per table
and per agent, compared with the source's. amplihack-rs's SQLite hierarchical
store (``<agent>.db``) moves the same way, both ways, its tables counted under
the graph tables' names.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from memexplorer.memory.export_validation import validate_export
from memexplorer.memory.hierarchical_memory import HierarchicalMemory
from memexplorer.memory.inspection import StoreSummary, summarize_store
from memexplorer.operator.rs_sqlite_transfer import GRAPH_NAMES, is_rs_store, read_rs_agent
from memexplorer.operator.rs_sqlite_write import insert_agent, open_rs_writable
from memexplorer.operator.transfer_files import remove_stale_stages
from memexplorer.operator.write_gate import write_gate
from memexplorer.storage.atomic_files import PRIVATE_FILE, fsync_folder, sync_file
from memexplorer.storage.collector import collector_paused, release_gradually
from memexplorer.storage.exceptions import InvalidInputError, StoreNotFoundError
from memexplorer.storage.graph_open import require_graph_readable
from memexplorer.storage.names import validate_agent_name
from memexplorer.storage.private_dirs import make_private_dirs
from memexplorer.storage.stores import resolve_hierarchical_path, sniff, stage_path

__all__ = ["AgentCounts", "MigrationResult", "TargetEngine", "migrate_store"]

_SIDECARS = (".wal", ".shadow", "-journal")
TargetEngine = Literal["kuzu", "ladybug", "sqlite"]
#: The default engine of the new store: the other graph engine; for amplihack-rs's
#: SQLite store, LadybugDB (what amplihack-rs's graph-db backend writes, crate lbug).
_OTHER_ENGINE: dict[str, TargetEngine] = {"kuzu": "ladybug", "ladybug": "kuzu",
                                          "sqlite": "ladybug"}  # fmt: skip


@dataclass(frozen=True)
class AgentCounts:
    """One agent's rows per table in the source and in the new store."""

    agent: str
    source: dict[str, int]
    target: dict[str, int]

    @property
    def tables(self) -> list[str]:
        return sorted(set(self.source) | set(self.target))

    @property
    def differing(self) -> list[str]:
        """Tables whose counts differ (a table absent on one side counts 0)."""
        return [t for t in self.tables if self.source.get(t, 0) != self.target.get(t, 0)]


@dataclass(frozen=True)
class MigrationResult:
    source: Path
    target: Path
    source_engine: str
    target_engine: str
    target_storage_version: int | None
    agents: list[AgentCounts]

    @property
    def counts_match(self) -> bool:
        return not any(agent.differing for agent in self.agents)


def _source_store(source: str | Path) -> Path:
    path = resolve_hierarchical_path(Path(source).expanduser())
    if not path.exists():
        raise StoreNotFoundError(path, "No store to migrate at this path")
    if path.is_symlink():
        raise InvalidInputError(
            f"The source {path} is a symbolic link; migrate does not follow links",
            hint=f"Name the real file: {os.path.realpath(path)}",
        )
    return path


def _refuse_existing(target: Path) -> None:
    if target.exists() or target.is_symlink():
        raise InvalidInputError(
            f"{target} already exists; migrate writes a NEW store and never overwrites one",
            hint="Name a path that does not exist yet (the store file to create).",
        )


def _chosen_agents(found: dict[str, dict[str, int]], asked: Sequence[str] | None) -> list[str]:
    if not asked:
        return sorted(found)
    missing = [validate_agent_name(a) for a in asked if a not in found]
    if missing:
        raise InvalidInputError(
            f"The source store holds no agent {', '.join(missing)}",
            hint=f"Its agents: {', '.join(sorted(found)) or 'none'}.",
        )
    return list(dict.fromkeys(asked))


def _read_agent(source: Path, engine: str, agent: str) -> dict[str, Any]:
    """One agent's graph in format 1.1, read-only, from a graph or SQLite store."""
    if engine == "sqlite":
        return read_rs_agent(source, agent)
    with HierarchicalMemory(agent, source, mode="read") as memory:
        return memory.export_graph("1.1")


def _write_agent(stage: Path, engine: TargetEngine, agent: str, data: dict[str, Any]) -> None:
    """Import one agent's graph into the new store (a graph store, or amplihack-rs's
    SQLite schema with the Rust import's statements)."""
    if engine != "sqlite":
        with HierarchicalMemory(agent, stage, mode="write", engine=engine) as memory:
            memory.import_from_json(data, merge=False)
        return
    connection = open_rs_writable(stage)
    try:
        insert_agent(connection, agent, validate_export(data), merge=False)
    finally:
        connection.close()


def _copy_agents(
    source: Path, source_engine: str, stage: Path, agents: list[str], engine: TargetEngine
) -> None:
    """Export each agent from ``source`` (read-only) and import it into ``stage``."""
    for agent in agents:
        with collector_paused():
            data = _read_agent(source, source_engine, agent)
            try:
                _write_agent(stage, engine, agent, data)
            finally:
                release_gradually(data)


def _graph_keyed(summary: StoreSummary) -> dict[str, dict[str, int]]:
    """Per-agent counts keyed by the graph tables' names, whatever the store's engine."""
    if summary.engine != "sqlite":
        return summary.agents
    return {agent: {GRAPH_NAMES[t]: n for t, n in counts.items()}
            for agent, counts in summary.agents.items()}  # fmt: skip


def _write_target(
    source: Path, source_engine: str, target: Path, agents: list[str], engine: TargetEngine
) -> None:
    """Build the new store under a temporary name, then link it into place."""
    remove_stale_stages(target, "migrate")  # a killed migration's, maybe store-sized
    stage = stage_path(target, "migrate", str(os.getpid()))
    try:
        _copy_agents(source, source_engine, stage, agents, engine)
        sync_file(stage, PRIVATE_FILE)
        try:
            os.link(stage, target)  # unlike a rename, never replaces a file
        except FileExistsError:
            _refuse_existing(target)
            raise
        fsync_folder(target.parent)
    finally:
        for suffix in ("", *_SIDECARS):
            stage.with_name(stage.name + suffix).unlink(missing_ok=True)


def migrate_store(
    source: str | Path,
    target: str | Path,
    *,
    agents: Sequence[str] | None = None,
    engine: TargetEngine | None = None,
) -> MigrationResult:
    """Copy the agents of the HierarchicalMemory store ``source`` into a new store
    ``target`` written with ``engine`` (default: the engine the source is not).

    ``source`` may be the store file or the agent's folder; ``target`` is the new
    store file and must not exist. Every agent is copied unless ``agents`` names
    some. The result holds both sides' counts; ``counts_match`` says whether the
    new store holds exactly what the source does.

    The target is written inside its write gate: a second migration to the same
    target is refused (StoreBusyError) rather than racing this one.
    """
    target_path = Path(target).expanduser()
    _refuse_existing(target_path)
    source_path = _source_store(source)
    fmt = sniff(source_path)
    if fmt.engine not in ("kuzu", "ladybug") and not is_rs_store(source_path):
        raise InvalidInputError(
            f"{source_path} is an {fmt.label} file; migrate copies Kuzu and LadybugDB stores "
            "and amplihack-rs's SQLite hierarchical stores",
            hint="Name a HierarchicalMemory store (memexplorer stats says what each store is).",
        )
    if fmt.engine != "sqlite":
        require_graph_readable(fmt)
    new_engine = engine or _OTHER_ENGINE[fmt.engine]
    before = summarize_store(fmt)
    if before.kind != "hierarchical":
        raise InvalidInputError(
            f"{source_path} holds {before.kind} memory; migrate copies HierarchicalMemory stores",
            hint="memexplorer stats says what each store is.",
        )
    chosen = _chosen_agents(before.agents, agents)
    if not chosen:
        raise InvalidInputError(
            f"{source_path} holds no agents; nothing to migrate", hint="Check the path."
        )
    make_private_dirs(target_path.parent)
    with write_gate(target_path, action="migrate"):
        _refuse_existing(target_path)  # another writer may have made it meanwhile
        _write_target(source_path, fmt.engine, target_path, chosen, new_engine)
    after = summarize_store(target_path)
    old, new = _graph_keyed(before), _graph_keyed(after)
    counts = [AgentCounts(a, old[a], new.get(a, {})) for a in chosen]
    return MigrationResult(
        source_path, target_path, fmt.engine, after.engine, after.storage_version, counts
    )
