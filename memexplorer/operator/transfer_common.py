"""What export and import share: formats, results, the agent's store path and counts."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memexplorer.memory.hierarchical_memory import GraphEngine, HierarchicalMemory
from memexplorer.operator.rs_sqlite_transfer import rs_store_path
from memexplorer.operator.transfer_formats import FORMATS, Format
from memexplorer.storage.backend_choice import (
    BACKEND_ENV,
    BACKEND_TOKENS,
    BackendChoiceError,
    amplihack_home,
    parse_backend,
)
from memexplorer.storage.exceptions import InvalidInputError
from memexplorer.storage.graph_open import open_graph_store
from memexplorer.storage.names import validate_agent_name
from memexplorer.storage.store_home import home_of_store
from memexplorer.storage.store_layout import (
    Layout,
    home_layout,
    new_store_path,
    rust_resolved_graph_db,
)
from memexplorer.storage.stores import resolve_hierarchical_path

__all__ = [
    "FORMATS",
    "SIDECARS",
    "ExportResult",
    "Format",
    "ImportResult",
    "agent_counts",
    "counts_of",
    "hierarchical_store_path",
    "probe_unlocked",
    "reject_symlink",
    "transfer_backend",
    "transfer_format",
    "transfer_store_path",
    "transfer_wants_sqlite",
]

#: Files a graph engine keeps beside a single-file store.
SIDECARS = (".wal", ".shadow")
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
    #: The raw-db import's ``<store>.bak`` sibling (the spec's), if there was a store.
    backup: Path | None = None
    warnings: list[str] = field(default_factory=list)
    #: The whole-store backup folder (``memexplorer backups`` lists it), if a store
    #: was replaced: ``memexplorer restore`` puts it back.
    store_backup: Path | None = None


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
    warning and the graph-db store is used. ``sqlite`` selects the per-agent
    SQLite store (:func:`transfer_wants_sqlite`).
    """
    env = os.environ if environ is None else environ
    token = env.get(BACKEND_ENV)
    if token is None:
        return []
    try:
        parse_backend(token, origin=BACKEND_ENV)
    except BackendChoiceError as exc:
        return [f"{exc.message}; using the graph-db store"]
    return []


def transfer_wants_sqlite(environ: Mapping[str, str] | None = None) -> bool:
    """Whether ``AMPLIHACK_MEMORY_BACKEND=sqlite`` names amplihack-rs's SQLite
    hierarchical store (``hierarchical_memory/<agent>.db``) for this transfer."""
    env = os.environ if environ is None else environ
    return BACKEND_TOKENS.get(env.get(BACKEND_ENV, "")) == "sqlite"


def transfer_store_path(
    agent: str,
    *,
    storage_path: str | Path | None = None,
    home: str | Path | None = None,
    engine: GraphEngine = "kuzu",
    sqlite: bool = False,
    layout: Layout | None = None,
    new: bool = False,
) -> Path:
    """The store a transfer of ``agent`` works on: amplihack-rs's SQLite file when
    ``sqlite`` or the backend variable says so, else the graph store
    (:func:`hierarchical_store_path`, with ``layout`` and ``new``)."""
    if sqlite or transfer_wants_sqlite():
        agent = validate_agent_name(agent)
        return rs_store_path(agent, storage_path=storage_path, home=amplihack_home(home))
    return hierarchical_store_path(
        agent, storage_path=storage_path, home=home, engine=engine, layout=layout, new=new
    )


def hierarchical_store_path(
    agent: str,
    *,
    storage_path: str | Path | None = None,
    home: str | Path | None = None,
    engine: GraphEngine = "kuzu",
    layout: Layout | None = None,
    new: bool = False,
) -> Path:
    """The agent's hierarchical store: ``storage_path`` (its folder or the file), else
    ``<home>/hierarchical_memory/<agent>`` with graph_db preferred over ladybug_db and
    kuzu_db. The folder is named by the normalised name
    (:func:`~.names.validate_agent_name`), the one the data is keyed by.

    Where no store exists yet, ``new`` (a command about to create one) places it as
    ``layout`` says (:mod:`.store_layout`; default: the layout the home already
    holds): python, the file ``<agent>`` or ``<folder>/<engine>_db``; rust,
    ``<agent>/graph_db``, or for ``storage_path`` what amplihack-rs opens there."""
    agent = validate_agent_name(agent)
    new_name = f"{engine}_db"
    if storage_path is not None:
        folder = Path(storage_path).expanduser()
        base = home_of_store(folder)
    else:
        if home is None:
            if not os.environ.get("HOME"):
                raise InvalidInputError(
                    "HOME is not set, so the amplihack home cannot be found",
                    hint="Set HOME, or give the store with --storage-path.",
                )
            home = Path.home() / ".amplihack"
        base = Path(home).expanduser()
        folder = base / "hierarchical_memory" / agent
    found = resolve_hierarchical_path(folder, new_name=new_name)
    if not new or os.path.lexists(found):
        return found
    chosen = home_layout(base, layout)
    if chosen == "rust" and storage_path is not None:
        return rust_resolved_graph_db(folder)
    return new_store_path(folder, chosen, engine)


def reject_symlink(path: Path, what: str) -> None:
    """Transfers never follow links: a link (even a looping one) is refused by name."""
    if path.is_symlink():
        try:
            target = os.readlink(path)
        except OSError:
            target = "?"
        raise InvalidInputError(
            f"{what} {path} is a symbolic link (to {target}); transfer does not follow links",
            hint="Name the real file instead of the link.",
        )


def counts_of(data: dict[str, Any]) -> dict[str, int]:
    """Rows per table, from an export's statistics."""
    stats = data.get("statistics") or {}
    return {table: int(stats.get(key, 0)) for key, table in _STAT_KEYS.items()}


def agent_counts(agent: str, store: Path) -> dict[str, int]:
    """The agent's rows per table in ``store`` (opened read-only), counted in the store."""
    from memexplorer.memory.export_pages import agent_table_counts

    with HierarchicalMemory(agent, store, mode="read") as memory:
        return agent_table_counts(memory.graph, memory.agent_name)


def probe_unlocked(store: Path) -> None:
    """Fail with StoreLockedError if another process holds the store (opens read-only)."""
    open_graph_store(store).close()
