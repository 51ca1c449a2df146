"""Snapshots: cheap dated exports of one agent, kept under the home for later diffs.

A snapshot is the agent's export (format 1.1, the file `memexplorer export`
writes) at ``<home>/backups/.snapshots/<agent>/<store>/<UTC time>.json``, where
``<store>`` names the store it was taken from (:func:`store_key`): two stores whose
agent has one name keep two histories. The
snapshots taken before that, directly in ``<agent>/``, are still listed, for every
store of the agent, said to be of a store not recorded. That place
confuses nobody: store discovery never looks inside ``backups/``, the agent's
own tools never read it, and ``memexplorer backups`` skips hidden folders, so a
snapshot is never offered for a restore. "What did this agent learn since
yesterday?" is then ``memexplorer diff SNAPSHOT AGENT``.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from memexplorer.operator.backup_records import backups_folder, list_backups
from memexplorer.operator.rs_sqlite_transfer import rs_store_path
from memexplorer.operator.transfer_common import transfer_store_path
from memexplorer.operator.transfer_export import export_agent_store
from memexplorer.operator.wording import rows_and_edges
from memexplorer.storage.backend_choice import HomeUnavailableError, amplihack_home
from memexplorer.storage.names import validate_agent_name
from memexplorer.storage.progress import TaskControl

__all__ = ["Snapshot", "TimelineEntry", "agent_store", "agent_timeline", "list_snapshots",
           "snapshots_folder", "store_key", "take_snapshot"]  # fmt: skip

_STAMP = "%Y%m%dT%H%M%S.%fZ"
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


@dataclass(frozen=True)
class Snapshot:
    path: Path
    agent: str
    taken_at: datetime
    size: int
    #: Taken before snapshots were kept per store: which store it is of is not recorded.
    store_unknown: bool = False


@dataclass(frozen=True)
class TimelineEntry:
    """A point in an agent's past that a diff can start from."""

    kind: str  # "snapshot" or "backup"
    path: Path
    taken_at: datetime
    label: str


def snapshots_folder(home: str | Path | None = None) -> Path:
    """Where the home's snapshots live (hidden inside its backups folder)."""
    return backups_folder(amplihack_home(home)) / ".snapshots"


def agent_store(agent: str, home: str | Path | None = None) -> Path:
    """The agent's hierarchical store in the home: where its tools look for a graph store
    (:func:`~.transfer_common.transfer_store_path`), else amplihack-rs's
    ``hierarchical_memory/<agent>.db`` when only that exists."""
    store = transfer_store_path(agent, home=home)
    if not store.exists():
        sqlite = rs_store_path(agent, storage_path=None, home=amplihack_home(home))
        if sqlite.is_file():
            return sqlite
    return store


def store_key(store: str | Path, home: str | Path | None = None) -> str:
    """The folder a store's snapshots are kept in. A store in the home: its path there,
    ``/`` written ``+`` (``hierarchical_memory+ops-agent+graph_db``), the same wherever
    the home is. A store elsewhere: ``outside+`` its name and a hash of its whole
    path, so two stores of one name never share a history."""
    place = Path(store).expanduser().resolve()
    try:
        inside = place.relative_to(amplihack_home(home).resolve())
    except (ValueError, HomeUnavailableError):
        inside = None
    if inside is not None and inside.parts:
        return "+".join(_UNSAFE.sub("_", part) for part in inside.parts)
    digest = hashlib.sha256(str(place).encode("utf-8", "surrogateescape")).hexdigest()[:12]
    name = _UNSAFE.sub("_", place.name).strip("._") or "store"
    return f"outside+{name}-{digest}"


def take_snapshot(
    agent: str,
    *,
    home: str | Path | None = None,
    storage_path: str | Path | None = None,
    control: TaskControl | None = None,
    now: datetime | None = None,
) -> Snapshot:
    """Export ``agent`` into its store's snapshots folder under a name that is its UTC time."""
    agent = validate_agent_name(agent)
    taken = (now or datetime.now(UTC)).astimezone(UTC)
    storage_path = storage_path or agent_store(agent, home)
    folder = snapshots_folder(home) / agent / store_key(storage_path, home)
    target = folder / f"{taken.strftime(_STAMP)}.json"
    result = export_agent_store(agent, target, format="json", storage_path=storage_path,
                                home=home, control=control, overwrite=False)  # fmt: skip
    return Snapshot(result.output, agent, taken, result.size_bytes)


def _taken_at(path: Path) -> datetime | None:
    try:
        return datetime.strptime(path.stem, _STAMP).replace(tzinfo=UTC)
    except ValueError:
        return None


def _in_folder(folder: Path, agent: str, store_unknown: bool) -> list[Snapshot]:
    """The snapshots directly in ``folder`` (files not named by a time are not ours)."""
    found = []
    if folder.is_dir() and not folder.is_symlink():
        for path in folder.glob("*.json"):
            taken = _taken_at(path)
            if taken is not None and path.is_file() and not path.is_symlink():
                found.append(Snapshot(path, agent, taken, path.stat().st_size, store_unknown))
    return found


def list_snapshots(
    agent: str, home: str | Path | None = None, store: str | Path | None = None
) -> list[Snapshot]:
    """The agent's snapshots, newest first: with ``store``, those of that store, else of
    every store; and in either case those taken before snapshots were kept per store."""
    folder = snapshots_folder(home) / validate_agent_name(agent)
    found = _in_folder(folder, agent, store_unknown=True)
    if store is not None:
        found += _in_folder(folder / store_key(store, home), agent, store_unknown=False)
    elif folder.is_dir():
        for sub in sorted(folder.iterdir()):
            if sub.is_dir() and not sub.is_symlink():
                found += _in_folder(sub, agent, store_unknown=False)
    return sorted(found, key=lambda s: s.taken_at, reverse=True)


def _snapshot_label(snapshot: Snapshot) -> str:
    label = f"snapshot · {snapshot.size:,} bytes"
    return label + " · store not recorded" if snapshot.store_unknown else label


def agent_timeline(
    agent: str, home: str | Path | None = None, store: Path | None = None
) -> list[TimelineEntry]:
    """The agent's snapshots and the backups that hold it, newest first: with
    ``store``, only that store's snapshots and backups (the agent's other stores, its
    experiences or cognitive memory, or another store whose agent has this name, have
    a past of their own)."""
    entries = [
        TimelineEntry("snapshot", s.path, s.taken_at, _snapshot_label(s))
        for s in list_snapshots(agent, home, store)
    ]
    place = store.resolve() if store is not None else None
    for record in list_backups(amplihack_home(home)):
        if agent in record.agents and (store is None or record.store.resolve() == place):
            nodes = sum(n for table, n in record.counts.items() if not table.isupper())
            edges = sum(record.counts.values()) - nodes  # rel tables are named in capitals
            kind = "whole store" if record.whole_store else rows_and_edges(nodes, edges)
            taken = record.created_at
            if taken.tzinfo is None:
                taken = taken.replace(tzinfo=UTC)
            entries.append(TimelineEntry("backup", record.path, taken,
                                         f"backup before {record.action} · {kind}"))  # fmt: skip
    return sorted(entries, key=lambda e: e.taken_at, reverse=True)
