"""Moving one agent's hierarchical memory in and out of a store (seed 002, "Transfer").

Two formats: ``json`` (transfer format 1.1; 1.0 is read too) and ``raw-db``
(a copy of the database file; ``kuzu`` is the spec's legacy alias). Files
appear whole or not at all: each is written under a ``.tmp`` name, synced and
renamed. An import without merge replaces the agent's data in one kuzu
transaction, so a crash at any point leaves the previous data as it was.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, TextIO

from .backend_choice import BACKEND_ENV, BackendChoiceError, parse_backend
from .collector import collector_paused, release_gradually
from .exceptions import ImportDataError, InvalidInputError, NotAStoreError, StoreNotFoundError
from .export_json import write_export_json
from .graph_open import open_graph_store, require_graph_readable
from .graph_store import GraphStore, identifier
from .hierarchical_memory import GraphEngine, HierarchicalMemory
from .hierarchical_transfer import precheck_import
from .inspection import SPEC_TABLES
from .names import validate_agent_name
from .private_dirs import make_private_dirs
from .progress import TaskControl, checkpoint
from .stores import resolve_hierarchical_path, sniff

__all__ = [
    "FORMATS",
    "MAX_IMPORT_BYTES",
    "ExportResult",
    "ImportResult",
    "export_agent_store",
    "hierarchical_store_path",
    "import_agent_store",
    "transfer_format",
]

Format = Literal["json", "raw-db"]
#: The spec's format tokens; ``kuzu`` is its backward-compatible alias of raw-db.
FORMATS: dict[str, Format] = {"json": "json", "raw-db": "raw-db", "kuzu": "raw-db"}
#: Larger JSON files are refused before they are read (seed 002).
MAX_IMPORT_BYTES = 500 * 1024 * 1024
_SIDECARS = (".wal", ".shadow")
_STAT_KEYS = {
    "semantic_node_count": "SemanticMemory",
    "episodic_node_count": "EpisodicMemory",
    "similar_to_edge_count": "SIMILAR_TO",
    "derives_from_edge_count": "DERIVES_FROM",
    "supersedes_edge_count": "SUPERSEDES",
    "transitioned_to_edge_count": "TRANSITIONED_TO",
}


@dataclass(frozen=True)
class ExportResult:
    agent: str
    format: Format
    store: Path
    output: Path
    size_bytes: int
    counts: dict[str, int]
    warnings: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class ImportResult:
    agent: str
    format: Format
    source: Path
    store: Path
    counts: dict[str, int]
    skipped: int = 0
    errors: int = 0
    merged: bool = False
    backup: Path | None = None
    warnings: list[str] = field(default_factory=list)


def transfer_format(token: str) -> Format:
    """The format a ``--format`` token names; anything else is refused."""
    if token not in FORMATS:
        raise InvalidInputError(
            f"Unknown transfer format {token!r}",
            hint=f"Use one of: {', '.join(FORMATS)} (kuzu is an alias of raw-db).",
        )
    return FORMATS[token]


def transfer_backend(environ: Mapping[str, str] | None = None) -> list[str]:
    """Check ``AMPLIHACK_MEMORY_BACKEND`` for a transfer; return warnings to show.

    Transfers have no --backend flag: the variable alone picks the hierarchical
    store (seed 002). An unknown value is not accepted silently: it gives a
    warning and the graph-db store is used. ``sqlite`` names the per-agent SQLite
    hierarchical file, whose tables the spec does not give, so it is refused.
    """
    env = os.environ if environ is None else environ
    token = env.get(BACKEND_ENV)
    if token is None:
        return []
    try:
        backend = parse_backend(token, origin=BACKEND_ENV)
    except BackendChoiceError as exc:
        return [f"{exc.message}; using the graph-db store"]
    if backend == "sqlite":
        raise InvalidInputError(
            f"{BACKEND_ENV}=sqlite selects the SQLite hierarchical store "
            "(hierarchical_memory/<agent>.db), which memexplorer cannot transfer: the spec "
            "gives no schema for its tables",
            hint=f"Unset {BACKEND_ENV} or set it to graph-db to use the agent's graph store.",
        )
    return []


def hierarchical_store_path(
    agent: str,
    *,
    storage_path: str | Path | None = None,
    home: str | Path | None = None,
    engine: GraphEngine = "kuzu",
) -> Path:
    """The agent's hierarchical store: ``storage_path`` (its folder or the file), else
    ``<home>/hierarchical_memory/<agent>`` with graph_db preferred over ladybug_db and
    kuzu_db; a folder holding none gets ``<engine>_db``."""
    validate_agent_name(agent)
    new_name = f"{engine}_db"
    if storage_path is not None:
        return resolve_hierarchical_path(Path(storage_path).expanduser(), new_name=new_name)
    if home is None:
        if not os.environ.get("HOME"):
            raise InvalidInputError(
                "HOME is not set, so the amplihack home cannot be found",
                hint="Set HOME, or give the store with --storage-path.",
            )
        home = Path.home() / ".amplihack"
    return resolve_hierarchical_path(
        Path(home).expanduser() / "hierarchical_memory" / agent, new_name=new_name
    )


# -- files that appear whole or not at all -----------------------------------------------
def _reject_symlink(path: Path, what: str) -> None:
    if path.is_symlink():
        raise InvalidInputError(
            f"{what} {path} is a symbolic link; transfer does not follow links",
            hint=f"Name the real file: {path.resolve()}",
        )


def _write_atomically(
    target: Path, write: Callable[[TextIO], None], control: TaskControl | None = None
) -> None:
    """Let ``write`` fill a temporary file, then rename it over ``target``: the file
    is whole or absent, and a cancel (checked while writing) leaves it absent."""
    make_private_dirs(target.parent)
    temporary = target.with_name(target.name + ".tmp")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            write(handle)
            handle.flush()
            os.fsync(handle.fileno())
        checkpoint(control, "putting the file in place")
        os.replace(temporary, target)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


def _copy_file_atomically(source: Path, target: Path) -> None:
    temporary = target.with_name(target.name + ".tmp")
    try:
        shutil.copyfile(source, temporary, follow_symlinks=False)
        os.chmod(temporary, 0o600)
        with open(temporary, "rb") as handle:
            os.fsync(handle.fileno())
        os.replace(temporary, target)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


def _copy_tree(source: Path, target: Path, warnings: list[str]) -> None:
    """Copy an old directory-layout store, skipping (and naming) symlinks inside."""
    temporary = target.with_name(target.name + ".tmp")
    shutil.rmtree(temporary, ignore_errors=True)
    temporary.mkdir(mode=0o700)
    try:
        for entry in sorted(source.rglob("*")):
            relative = entry.relative_to(source)
            if entry.is_symlink():
                warnings.append(f"skipped symbolic link {entry}")
                continue
            if entry.is_dir():
                (temporary / relative).mkdir(mode=0o700, exist_ok=True)
            else:
                shutil.copyfile(entry, temporary / relative, follow_symlinks=False)
                os.chmod(temporary / relative, 0o600)
        if target.exists():
            _swap_dir(temporary, target)
        else:
            os.replace(temporary, target)
    except BaseException:
        shutil.rmtree(temporary, ignore_errors=True)
        raise


def _swap_dir(new: Path, target: Path) -> None:
    old = target.with_name(target.name + ".old")
    shutil.rmtree(old, ignore_errors=True)
    os.replace(target, old)
    os.replace(new, target)
    shutil.rmtree(old, ignore_errors=True)


def _copy_store_file(source: Path, target: Path) -> None:
    """Copy a single-file store with its write-ahead log, if it has one."""
    _copy_file_atomically(source, target)
    for suffix in _SIDECARS:
        sidecar = source.with_name(source.name + suffix)
        if sidecar.is_file() and not sidecar.is_symlink():
            _copy_file_atomically(sidecar, target.with_name(target.name + suffix))


def _agent_counts(agent: str, store: Path) -> dict[str, int]:
    with HierarchicalMemory(agent, store, mode="read") as memory:
        return _counts_of({"statistics": memory.export_graph("1.1")["statistics"]})


def _probe_unlocked(store: Path) -> None:
    """Fail with StoreLockedError if another process holds the store (opens read-only)."""
    open_graph_store(store).close()


# -- export ------------------------------------------------------------------------------
def _counts_of(data: dict[str, Any]) -> dict[str, int]:
    stats = data.get("statistics") or {}
    return {table: int(stats.get(key, 0)) for key, table in _STAT_KEYS.items()}


def _export_json(
    agent: str, store: Path, target: Path, control: TaskControl | None
) -> dict[str, int]:
    with HierarchicalMemory(agent, store, mode="read") as memory:
        data = memory.export_graph("1.1", control=control)
    counts = _counts_of(data)
    if not counts["SemanticMemory"] and not counts["EpisodicMemory"]:
        raise InvalidInputError(
            f"Agent {agent!r} has no memories in {store}; nothing was written",
            hint="Check the agent name (memexplorer stats lists the agents of a store).",
        )
    try:
        _write_atomically(target, lambda handle: write_export_json(handle, data, control), control)
    finally:
        release_gradually(data)
    return counts


def export_agent_store(
    agent: str,
    output: str | Path,
    *,
    format: str = "json",
    storage_path: str | Path | None = None,
    home: str | Path | None = None,
    control: TaskControl | None = None,
) -> ExportResult:
    """Write the agent's graph to ``output`` (format 1.1 JSON, or a copy of the store).

    ``control`` hears of each stage and may cancel until the file is put in place.
    """
    kind = transfer_format(format)
    notes = transfer_backend()
    store = hierarchical_store_path(agent, storage_path=storage_path, home=home)
    target = Path(output).expanduser()
    if target.is_dir():
        raise InvalidInputError(
            f"The export target {target} is a folder", hint="Name a file to write."
        )
    if not store.exists() and not store.is_symlink():
        raise StoreNotFoundError(store, f"No hierarchical store for agent {agent!r}")
    _reject_symlink(store, "The store")
    if kind == "json":
        with collector_paused():
            counts = _export_json(agent, store, target, control)
        return ExportResult(agent, kind, store, target, target.stat().st_size, counts, notes)
    warnings: list[str] = list(notes)
    make_private_dirs(target.parent)
    if store.is_dir():
        # Kuzu before 0.11 kept a store as a folder; kuzu 0.11 cannot read it,
        # but a raw copy needs no reading.
        warnings.append(f"{store} is an older folder-layout store: copied as is, not read")
        _copy_tree(store, target, warnings)
        size = sum(p.stat().st_size for p in target.rglob("*") if p.is_file())
        return ExportResult(agent, kind, store, target, size, {}, warnings)
    _probe_unlocked(store)
    counts = _agent_counts(agent, store)
    _copy_store_file(store, target)
    return ExportResult(agent, kind, store, target, target.stat().st_size, counts, warnings)


# -- import ------------------------------------------------------------------------------
def _read_export(source: Path) -> dict[str, Any]:
    size = source.stat().st_size
    if size > MAX_IMPORT_BYTES:
        raise ImportDataError(
            f"{source} is {size / 1024 / 1024:.0f} MB, over the 500 MB import cap; not read",
            hint="Split the export, or use --format raw-db for a whole store.",
        )
    try:
        text = source.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise ImportDataError(
            f"{source} is not UTF-8 text (byte {exc.start})",
            hint="Give a JSON export written by memexplorer or the reference library.",
        ) from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ImportDataError(
            f"{source} is not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}",
            hint="The file may be truncated; export it again.",
        ) from None
    if not isinstance(data, dict):
        raise ImportDataError(
            f"{source} holds a JSON {type(data).__name__}, not an export object",
            hint="An export is an object with semantic_nodes, episodic_nodes and edge lists.",
        )
    return data


def _secure_new_store(store: Path, existed: bool) -> None:
    if existed or not store.exists():
        return
    if store.is_file():
        os.chmod(store, 0o600)
        for suffix in _SIDECARS:
            sidecar = store.with_name(store.name + suffix)
            if sidecar.is_file():
                os.chmod(sidecar, 0o600)


def import_agent_store(
    agent: str,
    source: str | Path,
    *,
    format: str = "json",
    merge: bool = False,
    storage_path: str | Path | None = None,
    home: str | Path | None = None,
    control: TaskControl | None = None,
    engine: GraphEngine | None = None,
) -> ImportResult:
    """Bring an export (or a whole store file) into the agent's store.

    The caller's ``agent`` is the only partition key: the file's agent_name is
    never used. Without merge the agent's data is replaced atomically; with it,
    ids that exist already are skipped and counted. ``control`` hears of each
    stage and may cancel until the new store replaces the old one. ``engine``
    ("kuzu" or "ladybug") is the one a new store is created with; an existing
    store keeps its own (default: the existing store's engine, else kuzu).
    """
    kind = transfer_format(format)
    notes = transfer_backend()
    source = Path(source).expanduser()
    if kind == "raw-db" and engine is not None:
        raise InvalidInputError(
            "--engine does not apply to raw-db imports: a raw copy keeps its own engine",
            hint="Import a JSON export to choose the engine, or use memexplorer migrate.",
        )
    if kind == "raw-db" and merge:
        raise InvalidInputError(
            "--merge does not work with raw-db imports: a raw copy replaces the whole store",
            hint="Use --format json to merge.",
        )
    if not source.exists() and not source.is_symlink():
        raise StoreNotFoundError(source, "No such file to import")
    _reject_symlink(source, "The import source")
    store = hierarchical_store_path(
        agent, storage_path=storage_path, home=home, engine=engine or "kuzu"
    )
    existed = store.exists()
    new_engine = _engine_for(store, engine)
    if kind == "json":
        if source.is_dir():
            raise ImportDataError(
                f"{source} is a folder, not a JSON export",
                hint="Use --format raw-db to import a store folder.",
            )
        checkpoint(control, "reading the file")
        with collector_paused():
            data = _read_export(source)
            precheck_import(data, merge=merge)  # bad files never create or open a store
            make_private_dirs(store.parent)
            try:
                result = _staged_import(agent, store, data, merge, control, new_engine)
            finally:
                release_gradually(data)
        _secure_new_store(store, existed)
        counts = {
            "SemanticMemory": result["semantic_nodes_imported"],
            "EpisodicMemory": result["episodic_nodes_imported"],
            **result["edges_by_type"],
        }
        return ImportResult(
            agent,
            kind,
            source,
            store,
            counts,
            result["skipped"],
            result["errors"],
            merge,
            warnings=notes,
        )
    result = _import_raw(agent, source, store)
    result.warnings[:0] = notes
    return result


def _checkpoint_pending_log(store: Path) -> None:
    """Fold a write-ahead log left by the store's writer into the file, so the
    file alone holds every committed change (opening for writing replays it)."""
    if store.with_name(store.name + ".wal").exists():
        open_graph_store(store, read_only=False).close()


def _engine_for(store: Path, asked: GraphEngine | None) -> GraphEngine:
    """The engine an import writes with: the existing store's, which ``asked`` may
    not contradict, else ``asked``, else kuzu."""
    if not store.exists() or store.is_dir():
        return asked or "kuzu"
    existing = sniff(store).engine
    if existing not in ("kuzu", "ladybug"):
        raise NotAStoreError(store, f"This is an {existing} file, not a graph store")
    if asked is not None and asked != existing:
        raise InvalidInputError(
            f"{store} is a {existing} store; an import cannot change its engine to {asked}",
            hint="Leave out --engine, import into a new store, or use memexplorer migrate.",
        )
    return existing


def _staged_import(
    agent: str,
    store: Path,
    data: dict[str, Any],
    merge: bool,
    control: TaskControl | None,
    engine: GraphEngine = "kuzu",
) -> dict[str, Any]:
    """Import into a copy of the store, then rename the copy over it.

    Kuzu 0.11 writes COPY data outside its log: a process killed while
    committing an import could keep the deletions and lose the inserts. A copy
    that replaces the store in one rename leaves either the old file or the new
    one. A read-only handle on the store, held throughout, keeps any other
    process from writing to it meanwhile (kuzu refuses a writer while it is open).
    """
    _remove_stale_stages(store)
    stage = store.with_name(f".{store.name}.import-{os.getpid()}")
    holder = None
    try:
        if store.exists():
            require_graph_readable(sniff(store))
            _checkpoint_pending_log(store)
            holder = open_graph_store(store)
            # Replacing the only agent of a store starts from an empty file
            # rather than deleting every row of a copy (kuzu deletes slowly:
            # 111 s against 29 s for 100k facts with their edges).
            if merge or not _holds_only(holder, agent):
                checkpoint(control, "copying the store")
                shutil.copyfile(store, stage)
        with HierarchicalMemory(agent, stage, mode="write", engine=engine) as memory:
            result = memory.import_from_json(data, merge=merge, control=control)
            checkpoint(control, "saving the new store")
        # Closing checkpointed the copy: it is one self-contained file now.
        if store.exists():
            shutil.copymode(store, stage)
        with open(stage, "rb") as handle:
            os.fsync(handle.fileno())
        checkpoint(control, "putting the new store in place")
        os.replace(stage, store)
        _fsync_folder(store.parent)
        return result
    finally:
        if holder is not None:
            holder.close()
        for suffix in ("", *_SIDECARS):
            stage.with_name(stage.name + suffix).unlink(missing_ok=True)


def _holds_only(graph: GraphStore, agent: str) -> bool:
    """Whether the store is a hierarchical store of ``agent`` alone (spec tables only,
    every node the agent's), so a fresh file can stand in for it."""
    nodes, rels = SPEC_TABLES["hierarchical"]
    if not set(graph.node_tables()) <= set(nodes) or not set(graph.rel_tables()) <= set(rels):
        return False
    for table in graph.node_tables():
        others = graph.scalar(
            f"MATCH (n:{identifier(table)}) WHERE n.agent_id IS NULL OR n.agent_id <> $agent "
            "RETURN count(n)",
            {"agent": agent},
        )
        if others:
            return False
    return True


def _remove_stale_stages(store: Path) -> None:
    """Remove copies left by imports whose process died (killed mid-import)."""
    for stage in store.parent.glob(f".{store.name}.import-*"):
        pid = stage.name.rsplit("-", 1)[-1].split(".", 1)[0]
        if pid.isdigit() and not _process_alive(int(pid)):
            stage.unlink(missing_ok=True)


def _process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _fsync_folder(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _import_raw(agent: str, source: Path, store: Path) -> ImportResult:
    """Replace the store with a copy of ``source``; the old one becomes ``<store>.bak``."""
    warnings: list[str] = []
    if source.resolve() == store.resolve():
        raise InvalidInputError(
            f"{source} is the agent's store itself; nothing to import",
            hint="Import from a copy made with memexplorer export --format raw-db.",
        )
    fmt = sniff(source)
    if fmt.layout == "directory":
        warnings.append(f"{source} is an older folder-layout store: copied as is, not read")
        counts: dict[str, int] = {}
    else:
        require_graph_readable(fmt)
        _probe_unlocked(source)
        counts = _agent_counts(agent, source)
        if not counts["SemanticMemory"] and not counts["EpisodicMemory"]:
            raise NotAStoreError(
                source,
                f"This store holds no memories for agent {agent!r}; nothing was changed",
                hint="Check the agent name (memexplorer stats lists the agents of a store).",
            )
    if store.exists() and not store.is_dir():
        _probe_unlocked(store)
    make_private_dirs(store.parent)
    backup = store.with_name(store.name + ".bak") if store.exists() else None
    if backup is not None:
        _replace_backup(store, backup)
    try:
        if source.is_dir():
            _copy_tree(source, store, warnings)
        else:
            _copy_store_file(source, store)
    except BaseException:
        if backup is not None:
            _restore_backup(store, backup)
        raise
    return ImportResult(agent, "raw-db", source, store, counts, 0, 0, False, backup, warnings)


def _move_with_sidecars(origin: Path, destination: Path) -> None:
    os.replace(origin, destination)
    for suffix in _SIDECARS:
        sidecar = origin.with_name(origin.name + suffix)
        if sidecar.exists():
            os.replace(sidecar, destination.with_name(destination.name + suffix))


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    elif path.exists() or path.is_symlink():
        path.unlink()


def _replace_backup(store: Path, backup: Path) -> None:
    """The spec's ``.bak`` sibling: an older backup is removed first."""
    for suffix in ("", *_SIDECARS):
        _remove(backup.with_name(backup.name + suffix))
    _move_with_sidecars(store, backup)


def _restore_backup(store: Path, backup: Path) -> None:
    for suffix in ("", *_SIDECARS):
        _remove(store.with_name(store.name + suffix))
    _move_with_sidecars(backup, store)
