"""Where each tool keeps an agent's hierarchical graph store, and which store is never written.

Two tools write ``<home>/hierarchical_memory/``, each in its own layout:

- ``python`` (amplihack-memory-lib, ``HierarchicalMemory.__init__``): on a fresh
  home the store IS ``hierarchical_memory/<agent>`` (one file); an existing folder
  without a ``lock`` file gets ``<engine>_db`` inside (``ladybug_db`` since the
  library moved to LadybugDB, ``kuzu_db`` before).
- ``rust`` (amplihack-rs, seed 002): ``hierarchical_memory/<agent>/graph_db``,
  with the legacy ``<agent>/kuzu_db`` read when ``graph_db`` is absent.

memexplorer never writes a legacy ``kuzu_db`` the Rust tool has replaced (one
with a ``graph_db`` beside it, or in a home that holds ``graph_db`` stores): a
write asks for ``memexplorer migrate`` to a new ``graph_db`` first, which keeps
the old store. docs/rust-stores.md records where the Rust code and seed 002 differ.
"""

from __future__ import annotations

import os
import shlex
from pathlib import Path
from typing import Literal

from memexplorer.storage.exceptions import InvalidInputError, LegacyStoreError
from memexplorer.storage.store_home import home_of_store
from memexplorer.storage.stores import empty_folder

__all__ = [
    "LAYOUTS",
    "LEGACY_RUST_STORE",
    "RUST_STORE",
    "Layout",
    "home_layout",
    "layout_votes",
    "legacy_store_refusal",
    "new_store_path",
    "rust_resolved_graph_db",
]

Layout = Literal["python", "rust"]
LAYOUTS: tuple[Layout, ...] = ("python", "rust")
RUST_STORE = "graph_db"
LEGACY_RUST_STORE = "kuzu_db"
#: The lock file amplihack-rs looks for to tell a folder that is itself a database.
_RUST_DB_LOCK = "kuzu.lock"


def _lexists(path: Path) -> bool:
    return os.path.lexists(path)


def rust_resolved_graph_db(graph_base: Path) -> Path:
    """The store amplihack-rs opens for ``graph_base`` (transfer/paths.rs
    ``resolved_graph_db``), rule by rule:

    1. a base named ``graph_db`` or ``kuzu_db``, or holding ``kuzu.lock``, is the store;
    2. a folder: its ``kuzu_db`` when that exists and ``graph_db`` is absent or an
       empty folder, else its ``graph_db`` (existing or not);
    3. otherwise an existing ``<base>/graph_db``, then ``<base>/kuzu_db``;
    4. otherwise the base itself.
    """
    if graph_base.name in (RUST_STORE, LEGACY_RUST_STORE) or (graph_base / _RUST_DB_LOCK).exists():
        return graph_base
    neutral, legacy = graph_base / RUST_STORE, graph_base / LEGACY_RUST_STORE
    if graph_base.is_dir():
        if legacy.exists() and (not neutral.exists() or empty_folder(neutral)):
            return legacy
        return neutral
    if neutral.exists():
        return neutral
    if legacy.exists():
        return legacy
    return graph_base


def layout_votes(home: Path) -> tuple[list[Path], list[Path]]:
    """The stores under ``<home>/hierarchical_memory`` that only one tool lays out so:
    (rust: ``<agent>/graph_db`` and ``<agent>.db``; python: the ``<agent>`` file and
    ``<agent>/ladybug_db``). ``kuzu_db`` is no vote: both tools wrote that name.
    Links are not followed."""
    folder = Path(home) / "hierarchical_memory"
    rust: list[Path] = []
    python: list[Path] = []
    try:
        entries = sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError:
        return rust, python
    for entry in entries:
        path = Path(entry.path)
        if entry.is_symlink():
            continue
        if entry.is_dir(follow_symlinks=False):
            if _lexists(path / RUST_STORE):
                rust.append(path / RUST_STORE)
            if _lexists(path / "ladybug_db"):
                python.append(path / "ladybug_db")
        elif entry.is_file(follow_symlinks=False) and not entry.name.startswith("."):
            (rust if entry.name.endswith(".db") else python).append(path)
    return rust, python


def home_layout(home: Path, asked: Layout | None = None) -> Layout:
    """The layout new stores get in ``home``: ``asked`` if given, else the one its
    stores already follow (python for a home that holds neither). A home holding
    both is refused: the operator says which tool the new store is for."""
    if asked is not None:
        if asked not in LAYOUTS:
            raise InvalidInputError(
                f"{asked!r} is not a store layout", hint="Use --layout python or --layout rust."
            )
        return asked
    rust, python = layout_votes(home)
    if rust and python:
        raise InvalidInputError(
            f"The home {home} holds stores of both layouts (Rust: {rust[0]}; Python: "
            f"{python[0]}), so where a new store goes depends on the tool that will read it",
            hint="Add --layout rust (for amplihack-rs) or --layout python "
            "(for amplihack-memory-lib).",
        )
    return "rust" if rust else "python"


def new_store_path(folder: Path, layout: Layout, engine: str) -> Path:
    """Where a new store for the agent folder ``folder`` goes in ``layout``: rust
    ``<folder>/graph_db``; python (the library's rule) ``<folder>/<engine>_db`` when the
    folder exists without a ``lock`` file, else ``folder`` itself."""
    if layout == "rust":
        return folder / RUST_STORE
    if folder.is_dir() and not (folder / "lock").exists():
        return folder / f"{engine}_db"
    return folder


def legacy_store_refusal(store: Path) -> LegacyStoreError | None:
    """The error for a write to ``store`` when it is a legacy ``kuzu_db`` the Rust
    layout has replaced (a ``graph_db`` beside it, or ``graph_db`` stores in its home),
    with the exact command that copies it to ``graph_db``; None when it may be written."""
    if store.name != LEGACY_RUST_STORE:
        return None
    neutral = store.with_name(RUST_STORE)
    rust, _ = layout_votes(home_of_store(store))
    beside = _lexists(neutral)
    if not beside and not any(p.name == RUST_STORE for p in rust):
        return None
    why = (
        f"{neutral} exists beside it"
        if beside
        else "its home holds graph_db stores (the amplihack-rs layout)"
    )
    command = f"memexplorer migrate {shlex.quote(str(store))} {shlex.quote(str(neutral))}"
    return LegacyStoreError(
        store,
        f"This is a legacy kuzu_db store, read-only because {why}; memexplorer never writes it",
        hint=_migrate_hint(neutral, command),
    )


def _migrate_hint(neutral: Path, command: str) -> str:
    copy = f"{command} --engine ladybug"
    if not _lexists(neutral):
        return f"Copy it to graph_db first (the old store is kept): {copy}"
    if empty_folder(neutral):
        folder = shlex.quote(str(neutral))
        return f"Remove the empty folder, then copy (old store kept): rmdir {folder} && {copy}"
    return f"Write to {neutral} instead: amplihack-rs reads it in this store's place."
