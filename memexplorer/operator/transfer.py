"""Moving one agent's hierarchical memory in and out of a store (seed 002, "Transfer").

Two formats: ``json`` (transfer format 1.1; 1.0 is read too) and ``raw-db``
(a copy of the database file; ``kuzu`` is the spec's legacy alias). Export is
in :mod:`.transfer_export`; this module is the import's entry point, which
refuses what would surprise before it touches a store, then writes inside the
store's write gate: JSON through :mod:`.transfer_import`, raw copies through
:mod:`.transfer_raw`. Files appear whole or not at all, private (0o600 in
0o700 folders) from their first byte; a kill at any point leaves the old data.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

from memexplorer.memory.hierarchical_memory import GraphEngine
from memexplorer.memory.hierarchical_transfer import import_agent, precheck_import, validate_export
from memexplorer.memory.import_check_child import check_import_file
from memexplorer.memory.import_file import MAX_IMPORT_BYTES, check_replace_file, read_export
from memexplorer.memory.import_spill import RowSpill
from memexplorer.memory.import_stream_check import check_replace_summary
from memexplorer.memory.import_stream_write import write_export_file
from memexplorer.operator.rs_sqlite_import import import_rs_store
from memexplorer.operator.rs_sqlite_transfer import is_rs_store
from memexplorer.operator.transfer_common import (
    FORMATS,
    ExportResult,
    ImportResult,
    hierarchical_store_path,
    reject_symlink,
    transfer_backend,
    transfer_format,
    transfer_store_path,
    transfer_wants_sqlite,
)
from memexplorer.operator.transfer_export import export_agent_store
from memexplorer.operator.transfer_import import import_json_staged
from memexplorer.operator.transfer_raw import import_raw
from memexplorer.operator.write_gate import write_gate
from memexplorer.storage.backend_choice import amplihack_home
from memexplorer.storage.collector import collector_paused
from memexplorer.storage.exceptions import (
    ImportDataError,
    InvalidInputError,
    NotAStoreError,
    StoreNotFoundError,
)
from memexplorer.storage.graph_shape import GRAPH_SHAPE, from_graph_shape
from memexplorer.storage.graph_store import GraphStore
from memexplorer.storage.memory_budget import import_sizes
from memexplorer.storage.names import validate_agent_name
from memexplorer.storage.private_dirs import make_private_dirs
from memexplorer.storage.progress import TaskControl, checkpoint
from memexplorer.storage.store_layout import RUST_STORE, Layout
from memexplorer.storage.stores import sniff

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


def import_agent_store(
    agent: str,
    source: str | Path,
    *,
    format: str = "json",
    merge: bool = False,
    storage_path: str | Path | None = None,
    home: str | Path | None = None,
    control: TaskControl | None = None,
    engine: GraphEngine | Literal["sqlite"] | None = None,
    allow_empty: bool = False,
    layout: Layout | None = None,
) -> ImportResult:
    """Bring an export (or a whole store file) into the agent's store.

    The caller's ``agent`` (normalised: :func:`~.names.validate_agent_name`) is the
    only partition key: the file's agent_name is never used. Without merge the
    agent's data is replaced atomically, after a whole copy of the old store is
    saved in ``<home>/backups``; a file with no nodes or missing one of its lists
    is refused then unless ``allow_empty``. With merge, ids that exist already
    are skipped and counted. ``control`` hears of each stage and may cancel until
    the new store replaces the old one. ``engine`` ("kuzu" or "ladybug") is the
    one a new store is created with; an existing store keeps its own; "sqlite"
    means amplihack-rs's ``<agent>.db`` (as ``AMPLIHACK_MEMORY_BACKEND=sqlite`` does), and
    ``layout`` ("python" or "rust"; default: what the home holds) where a new graph store
    goes (:func:`~.transfer_common.hierarchical_store_path`). Raises
    StoreBusyError while another memexplorer writes the store, WritesDisabledError
    under MEMEXPLORER_READ_ONLY=1, StoreUpgradeRequired for an older LadybugDB store.
    """
    agent = validate_agent_name(agent)
    kind = transfer_format(format)
    notes = transfer_backend()
    source = Path(source).expanduser()
    if kind == "raw-db" and engine not in (None, "sqlite"):
        raise InvalidInputError(
            "--engine does not apply to raw-db imports: a raw copy keeps its own engine",
            hint="Import a JSON export to choose the engine, or use memexplorer migrate.",
        )
    if kind == "raw-db" and merge:
        raise InvalidInputError(
            "--merge does not work with raw-db imports: a raw copy replaces the whole store",
            hint="Use --format json to merge.",
        )
    reject_symlink(source, "The import source")
    if not source.exists():
        raise StoreNotFoundError(source, "No such file to import")
    if not (source.is_file() or source.is_dir()):  # a FIFO would wait for a writer forever
        raise InvalidInputError(
            f"The import source {source} is not a regular file (a pipe, socket or device)",
            hint="Save the export to a file first, then import that file.",
        )
    sqlite = engine == "sqlite" or transfer_wants_sqlite()
    store = transfer_store_path(agent, storage_path=storage_path, home=home,
                                engine=engine or "kuzu", sqlite=sqlite,
                                layout=layout, new=True)  # fmt: skip
    reject_symlink(store, "The store")
    backup_home = amplihack_home(home)
    if sqlite or is_rs_store(store):
        if engine not in (None, "sqlite"):
            raise InvalidInputError(
                f"{store} is amplihack-rs's SQLite store; an import cannot make it {engine}",
                hint="Import into a new store, or copy it with memexplorer migrate.",
            )
        result = import_rs_store(agent, source, store, kind=kind, merge=merge,
                                 allow_empty=allow_empty, backup_home=backup_home,
                                 control=control)  # fmt: skip
        result.warnings[:0] = notes
        return result
    assert engine != "sqlite"
    if kind == "raw-db":
        make_private_dirs(store.parent)
        with write_gate(store, action="import") as ticket:
            result = import_raw(
                agent, source, store, ticket=ticket, backup_home=backup_home, control=control
            )
        result.warnings[:0] = notes
        return result
    if source.is_dir():
        raise ImportDataError(
            f"{source} is a folder, not a JSON export",
            hint="Use --format raw-db to import a store folder.",
        )
    new_engine = _engine_for(store, engine)
    checkpoint(control, "reading the file")
    with collector_paused(), tempfile.TemporaryDirectory(prefix="memexplorer-import-") as rows:
        # One pass checks every record (a file bad anywhere writes nothing) and
        # keeps its rows on disk for the writing step: memory never holds the file.
        spill = RowSpill(Path(rows), agent)
        summary = check_import_file(source, merge=merge, spill=spill)
        spill.close()
        if summary.graph_shape:
            write = _graph_shape_writer(
                source, merge=merge, allow_empty=allow_empty, control=control
            )
        elif kind == GRAPH_SHAPE:
            raise ImportDataError(
                f"{source} is not in the graph shape ('nodes' and 'edges' lists)",
                hint="Leave out --format graph to import a transfer-format export.",
            )
        else:
            if not merge:
                check_replace_summary(summary, allow_empty=allow_empty)

            def write(graph: GraphStore, agent_id: str) -> dict[str, Any]:
                return write_export_file(graph, agent_id, spill, summary, merge=merge,
                                         control=control)  # fmt: skip

        stage_pool = import_sizes(records=summary.total).pool
        make_private_dirs(store.parent)
        with write_gate(store, action="import") as ticket:
            result, backup = import_json_staged(
                agent, store, write, merge=merge, control=control, engine=new_engine,
                ticket=ticket, backup_home=backup_home,
                new_stage_pool=None if summary.graph_shape else stage_pool,
            )  # fmt: skip
    counts = {
        "SemanticMemory": result["semantic_nodes_imported"],
        "EpisodicMemory": result["episodic_nodes_imported"],
        **result["edges_by_type"],
    }
    return ImportResult(
        agent, kind, source, store, counts, result["skipped"], result["errors"], merge,
        warnings=notes, store_backup=backup,
    )  # fmt: skip


def _graph_shape_writer(
    source: Path, *, merge: bool, allow_empty: bool, control: TaskControl | None
) -> Callable[[GraphStore, str], dict[str, Any]]:
    """Seed 003's graph shape is read whole (its lists mix kinds), then checked and
    written as a transfer-format document, as before streaming."""
    data = from_graph_shape(read_export(source))
    checked = None if merge else validate_export(data)
    if merge:
        precheck_import(data, merge=merge)
    else:
        check_replace_file(data, allow_empty=allow_empty)

    def write(graph: GraphStore, agent_id: str) -> dict[str, Any]:
        return import_agent(graph, agent_id, data, merge=merge, control=control, checked=checked)

    return write


def _engine_for(store: Path, asked: GraphEngine | None) -> GraphEngine:
    """The engine an import writes with: the existing store's, which ``asked`` may
    not contradict, else ``asked``, else ladybug for a new ``graph_db`` (amplihack-rs
    reads LadybugDB only), else kuzu."""
    if not store.exists() or store.is_dir():
        return asked or ("ladybug" if store.name == RUST_STORE else "kuzu")
    existing = sniff(store).engine
    if existing not in ("kuzu", "ladybug"):
        raise NotAStoreError(store, f"This is an {existing} file, not a graph store")
    if asked is not None and asked != existing:
        raise InvalidInputError(
            f"{store} is a {existing} store; an import cannot change its engine to {asked}",
            hint="Leave out --engine, import into a new store, or use memexplorer migrate.",
        )
    return existing
