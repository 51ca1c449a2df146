"""The two things a diff compares, each read into one agent's export (format 1.1 or 1.0).

A side is named by a path or an agent: a store (Kuzu, LadybugDB or amplihack-rs's
SQLite file), a JSON export (1.1, the library's 1.0, or the graph shape), a
memexplorer snapshot (an export under the home), a backup folder, or an agent's
name (its store in the home). Stores are opened read-only, so reading a side
never changes a byte of it. A backup of saved rows (a clean's, a redaction's)
holds only what that action removed or changed: the store as it was is the store
now with those rows put back, which is what such a side reads as.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from memexplorer.memory.export_schema import EDGE_SPECS
from memexplorer.memory.export_validation import Problems, parse_export
from memexplorer.memory.hierarchical_memory import HierarchicalMemory
from memexplorer.memory.hierarchical_schema import loads_json
from memexplorer.memory.import_file import read_export
from memexplorer.operator.backup_records import read_backup
from memexplorer.operator.diff_sqlite_backup import rs_store_as_it_was
from memexplorer.operator.rs_sqlite_transfer import is_rs_store, read_rs_agent
from memexplorer.operator.saved_rows import SavedTable
from memexplorer.operator.snapshots import agent_store
from memexplorer.storage.exceptions import (
    ImportDataError,
    InvalidInputError,
    NotAStoreError,
    StoreNotFoundError,
)
from memexplorer.storage.graph_shape import from_graph_shape, is_graph_shape
from memexplorer.storage.names import validate_agent_name
from memexplorer.storage.stores import sniff

__all__ = ["DiffSide", "read_side", "side_agent"]

_SEMANTIC = ("memory_id", "concept", "content", "confidence", "source_id", "tags", "metadata",
             "created_at", "entity_name")  # fmt: skip
_EPISODIC = ("memory_id", "content", "source_label", "tags", "metadata", "created_at")


@dataclass(frozen=True)
class DiffSide:
    """One side of a diff: what it is, where, whose, and its export."""

    kind: str  # "store", "export", "snapshot" or "backup"
    path: Path
    agent: str
    taken_at: str
    data: dict[str, Any]

    def describe(self) -> dict[str, str]:
        return {"kind": self.kind, "path": str(self.path), "agent": self.agent,
                "taken_at": self.taken_at}  # fmt: skip


def _is_json(path: Path) -> bool:
    with path.open("rb") as handle:
        # a BOM first is JSON's too, for read_export to name
        return handle.read(64).removeprefix(b"\xef\xbb\xbf").lstrip()[:1] in (b"{", b"[")


def side_agent(spec: str | Path) -> str | None:
    """The agent a side names by itself (an export's agent_name, a backup's one agent,
    a store's path ``hierarchical_memory/<agent>/…``), without reading a store."""
    path = Path(spec).expanduser()
    if path.is_dir() and (path / "manifest.json").is_file():
        manifest = json.loads((path / "manifest.json").read_text(encoding="utf-8"))
        agents = manifest.get("agents")
        if isinstance(agents, list) and len(agents) == 1:
            return str(agents[0])
        return _path_agent(Path(str(manifest.get("store", ""))))
    if path.is_file() and _is_json(path):
        try:
            data = read_export(path)
        except ImportDataError:
            return None  # reading the side says what is wrong with it
        name = data.get("agent_name")
        return str(name) if name else None
    return _path_agent(path) if path.exists() else None


def _path_agent(store: Path) -> str | None:
    """The agent a store's path names, as the tools lay stores out, else None."""
    if store.parent.parent.name == "hierarchical_memory":
        return store.parent.name
    if store.suffix == ".db" and store.parent.name == "hierarchical_memory":
        return store.stem
    return None


def _store_agent(store: Path, agent: str | None) -> str:
    if agent:
        return validate_agent_name(agent)
    named = _path_agent(store)
    if named:
        return named
    raise InvalidInputError(
        f"Which agent of {store}? The store's path does not name one",
        hint="Add --agent NAME (memexplorer stats lists the agents of a store).",
    )


def _read_store(store: Path, agent: str) -> dict[str, Any]:
    if not store.exists():
        raise StoreNotFoundError(store, f"No hierarchical store for agent {agent!r}")
    if is_rs_store(store):
        return read_rs_agent(store, agent)
    with HierarchicalMemory(agent, store, mode="read") as memory:
        return memory.export_graph("1.1")


def _node(row: dict[str, Any], names: tuple[str, ...]) -> dict[str, Any]:
    node: dict[str, Any] = {}
    for name in names:
        value = row.get(name)
        if name in ("tags", "metadata"):
            node[name] = loads_json(value, [] if name == "tags" else {})
        elif name == "confidence":
            node[name] = value
        else:
            node[name] = value or ""
    return node


def _put_back(data: dict[str, Any], tables: list[SavedTable], agent: str) -> dict[str, Any]:
    """The export ``data`` with a backup's saved rows of ``agent`` put back in place."""
    nodes = {"SemanticMemory": ("semantic_nodes", _SEMANTIC),
             "EpisodicMemory": ("episodic_nodes", _EPISODIC)}  # fmt: skip
    specs = {spec.rel: spec for spec in EDGE_SPECS}
    result = dict(data)
    for table in tables:
        if table.name in nodes:
            key, names = nodes[table.name]
            by_id = {str(n["memory_id"]): n for n in result.get(key, [])}
            for row in table.rows:
                if row.get("agent_id") == agent:
                    by_id[str(row["memory_id"])] = _node(row, names)
            result[key] = list(by_id.values())
    facts = {str(n["memory_id"]) for n in result.get("semantic_nodes", [])}
    for table in tables:
        spec = specs.get(table.name)
        if spec is None or spec.key not in result:
            continue
        ends = {(str(e["source_id"]), str(e["target_id"])) for e in result[spec.key]}
        for row in table.rows:
            pair = (str(row["_from"]), str(row["_to"]))
            if pair[0] not in facts or pair in ends:
                continue
            edge = {"source_id": pair[0], "target_id": pair[1]}
            for name, kind, default in spec.fields:
                value = row.get(name)
                edge[name] = loads_json(value, {}) if kind is dict else (
                    default if value is None else value
                )  # fmt: skip
            result[spec.key] = [*result[spec.key], edge]
            ends.add(pair)
    return result


def _read_backup(folder: Path, agent: str | None) -> DiffSide:
    record, tables = read_backup(folder)
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    if agent is None:
        agent = _path_agent(record.store)
    if agent is None:
        if len(record.agents) != 1:
            raise InvalidInputError(
                f"The backup {folder.name} holds agents {', '.join(record.agents) or 'none'}",
                hint="Add --agent NAME to say which agent to compare.",
            )
        agent = record.agents[0]
    taken = record.created_at.isoformat()
    if record.whole_store:
        copy = folder / str(manifest["file"])
        return DiffSide("backup", folder, agent, taken, _read_store(copy, agent))
    if record.engine == "sqlite":
        if not is_rs_store(record.store):
            raise InvalidInputError(
                f"The backup {folder.name} is of {record.store}, which holds no hierarchical "
                "memory to compare",
                hint="diff compares facts, episodes and their edges of one agent.",
            )
        return DiffSide("backup", folder, agent, taken,
                        rs_store_as_it_was(record.store, tables, agent))  # fmt: skip
    now = _read_store(record.store, agent)
    return DiffSide("backup", folder, agent, taken, _put_back(now, tables, agent))


def _read_file(path: Path, snapshots: Path | None) -> DiffSide:
    try:
        data = read_export(path)
        if is_graph_shape(data):
            data = from_graph_shape({**data})
        problems = Problems()
        parse_export(data, problems)  # the shape and fields every record needs
        problems.raise_if_any()
    except ImportDataError as exc:
        raise InvalidInputError(
            f"{path} cannot be compared: {exc.message}",
            hint="Name an export (memexplorer export, the library's export_to_json), a "
            "snapshot, a backup folder, a store or an agent.",
        ) from None
    agent = str(data.get("agent_name") or "")
    kind = "snapshot" if snapshots is not None and snapshots in path.parents else "export"
    return DiffSide(kind, path, agent, _when(data.get("exported_at")), data)


def _when(stamp: Any) -> str:
    """An export's time as ISO text: 1.1 writes Unix seconds, 1.0 ISO text already."""
    text = str(stamp or "")
    if text.isdigit():
        return datetime.fromtimestamp(int(text), UTC).isoformat()
    return text


def read_side(
    spec: str | Path,
    *,
    agent: str | None = None,
    home: str | Path | None = None,
    snapshots: Path | None = None,
) -> DiffSide:
    """Read one side of a diff; ``agent`` says whose memory a store or backup holds."""
    path = Path(spec).expanduser()
    if path.is_dir() and (path / "manifest.json").is_file():
        return _read_backup(path, agent)
    if path.is_file() and _is_json(path):
        return _read_file(path, snapshots)
    if path.exists():
        try:
            sniff(path)
        except NotAStoreError:
            raise InvalidInputError(
                f"{path} is neither a store, a JSON export nor a backup folder",
                hint="Name a store, an export, a snapshot, a backup folder or an agent.",
            ) from None
        name = _store_agent(path, agent)
        return DiffSide("store", path, name, "now", _read_store(path, name))
    if "/" in str(spec) or str(spec).endswith(".json"):
        raise StoreNotFoundError(path, "No such store, export or backup")
    name = validate_agent_name(str(spec))  # an agent's name: its store in the home
    store = agent_store(name, home)
    return DiffSide("store", store, name, "now", _read_store(store, name))
