"""Which flat memory backend a command uses, and where its store lives.

Seed 002 ("BackendChoice values", "Environment variables", "Storage paths"):
the tokens are ``sqlite``, ``graph-db`` and ``kuzu`` (an alias of graph-db),
with exact casing. A ``--backend`` flag wins over ``AMPLIHACK_MEMORY_BACKEND``;
with neither, :mod:`.backend_autodetect` probes the home as amplihack-rs's
``resolve_backend_with_autodetect()`` does; where that names sqlite and only
the graph store exists, the graph store is used (amplihack-rs's ``memory tree``
and ``memory clean`` default to graph-db). An unknown value of the variable is
an error that echoes it, as in that function (the transfer commands warn and
fall back to graph-db instead, as amplihack-rs's do). Warnings are returned as
data; the CLI prints them on stderr and the app shows them.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path, PurePath
from typing import Literal

from memexplorer.storage.backend_autodetect import autodetect_backend
from memexplorer.storage.exceptions import InvalidInputError

__all__ = [
    "BACKEND_ENV",
    "BACKEND_TOKENS",
    "GRAPH_PATH_ENV",
    "LEGACY_GRAPH_PATH_ENV",
    "Backend",
    "BackendChoiceError",
    "BackendResolution",
    "FlatStorePaths",
    "HomeUnavailableError",
    "amplihack_home",
    "anything_at",
    "flat_store_paths",
    "parse_backend",
    "parse_env_backend",
    "resolve_backend",
]

Backend = Literal["sqlite", "graph-db"]
Source = Literal["flag", "env", "auto-detect", "fallback"]

BACKEND_ENV = "AMPLIHACK_MEMORY_BACKEND"
GRAPH_PATH_ENV = "AMPLIHACK_GRAPH_DB_PATH"
LEGACY_GRAPH_PATH_ENV = "AMPLIHACK_KUZU_DB_PATH"

#: Every accepted token and the backend it selects (``kuzu`` is the alias).
BACKEND_TOKENS: dict[str, Backend] = {
    "sqlite": "sqlite",
    "graph-db": "graph-db",
    "kuzu": "graph-db",
}

SQLITE_FILE = "memory.db"
GRAPH_FILE = "memory_graph.db"
#: What the Python amplihack KuzuBackend wrote before the rename; read when
#: memory_graph.db is absent, as amplihack-rs does.
LEGACY_GRAPH_FILE = "memory_kuzu.db"
_BLOCKED_PREFIXES = (PurePath("/proc"), PurePath("/sys"), PurePath("/dev"))


class BackendChoiceError(InvalidInputError):
    title = "Unknown memory backend"
    hint = "Use one of: sqlite, graph-db, kuzu (exactly, in lower case)."


class HomeUnavailableError(InvalidInputError):
    title = "No home folder"
    hint = "Set HOME, or name the amplihack home with --home."


@dataclass(frozen=True)
class FlatStorePaths:
    """Where each backend keeps its flat session memory for one home."""

    home: Path
    sqlite: Path
    graph: Path
    graph_origin: str

    def path_for(self, backend: Backend) -> Path:
        return self.sqlite if backend == "sqlite" else self.graph


@dataclass(frozen=True)
class BackendResolution:
    """The backend chosen, the store it means, and why."""

    backend: Backend
    path: Path
    source: Source
    reason: str
    token: str = ""
    warnings: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, object]:
        """The fields, in their order, as JSON has them."""
        return asdict(self) | {"path": str(self.path), "warnings": list(self.warnings)}


def parse_backend(token: str, *, origin: str = "--backend") -> Backend:
    """The backend a token names; anything outside the allowlist is refused."""
    backend = BACKEND_TOKENS.get(token)
    if backend is None:
        close = [name for name in BACKEND_TOKENS if name == token.strip().lower()]
        extra = f" (casing is exact: did you mean {close[0]!r}?)" if close else ""
        raise BackendChoiceError(f"{origin} {token!r} is not a memory backend{extra}")
    return backend


def parse_env_backend(value: str) -> Backend:
    """The backend ``AMPLIHACK_MEMORY_BACKEND`` names; any other value is an error
    that echoes it (amplihack-rs ``parse_backend_choice_env_value``): a typo must not
    send memory to an unexpected store. The transfer commands warn and fall back
    instead (:func:`~.transfer_common.transfer_backend`)."""
    backend = BACKEND_TOKENS.get(value)
    if backend is None:
        raise BackendChoiceError(
            f"Unrecognized {BACKEND_ENV} value {value!r}. Valid values: sqlite, graph-db. "
            "Legacy compatibility value: kuzu",
            hint=f"Set {BACKEND_ENV} to sqlite or graph-db (exactly), or unset it.",
        )
    return backend


def amplihack_home(
    home: str | Path | None = None, environ: Mapping[str, str] | None = None
) -> Path:
    """The amplihack home: ``home`` if given, else ``$HOME/.amplihack``."""
    if home is not None:
        return Path(home).expanduser()
    env = os.environ if environ is None else environ
    user_home = env.get("HOME", "")
    if not user_home.strip():
        raise HomeUnavailableError("HOME is not set, so the amplihack home cannot be found")
    return Path(user_home) / ".amplihack"


def _checked_override(value: str, name: str) -> Path:
    path = PurePath(value)
    problem = ""
    if not path.is_absolute():
        problem = "must be an absolute path"
    elif ".." in path.parts:
        problem = "must not contain '..'"
    elif any(path.is_relative_to(prefix) for prefix in _BLOCKED_PREFIXES):
        problem = "must not point into /proc, /sys or /dev"
    if problem:
        raise InvalidInputError(
            f"{name}={value!r} {problem}", hint=f"Set {name} to the absolute path of the store."
        )
    return Path(value)


def flat_store_paths(
    home: str | Path | None = None, environ: Mapping[str, str] | None = None
) -> tuple[FlatStorePaths, list[str]]:
    """Both flat store paths for a home, with notes about how they were found.

    ``AMPLIHACK_GRAPH_DB_PATH`` (or its alias ``AMPLIHACK_KUZU_DB_PATH``)
    overrides the graph path, except when ``home`` is given explicitly: an
    operator who names a home means that home's stores.
    """
    env = os.environ if environ is None else environ
    base = amplihack_home(home, env)
    notes: list[str] = []
    graph, origin = base / GRAPH_FILE, "default"
    primary = env.get(GRAPH_PATH_ENV, "").strip()
    legacy = env.get(LEGACY_GRAPH_PATH_ENV, "").strip()
    if home is not None and (primary or legacy):
        name = GRAPH_PATH_ENV if primary else LEGACY_GRAPH_PATH_ENV
        notes.append(f"{name} is ignored because a home was named explicitly ({base})")
    elif primary:
        graph, origin = _checked_override(primary, GRAPH_PATH_ENV), GRAPH_PATH_ENV
    elif legacy:
        graph, origin = _checked_override(legacy, LEGACY_GRAPH_PATH_ENV), LEGACY_GRAPH_PATH_ENV
        notes.append(f"{LEGACY_GRAPH_PATH_ENV} is deprecated; use {GRAPH_PATH_ENV}")
    elif not anything_at(graph) and anything_at(base / LEGACY_GRAPH_FILE):
        graph, origin = base / LEGACY_GRAPH_FILE, "legacy"
        notes.append(f"using the legacy store {graph} because {base / GRAPH_FILE} is absent")
    return FlatStorePaths(base, base / SQLITE_FILE, graph, origin), notes


def anything_at(path: Path) -> bool:
    """True for anything at ``path``, a symlink included (never followed)."""
    try:
        os.lstat(path)
    except OSError:
        return False
    return True


def resolve_backend(
    flag: str | None = None,
    *,
    home: str | Path | None = None,
    environ: Mapping[str, str] | None = None,
) -> BackendResolution:
    """Choose the flat memory backend: flag > environment variable > auto-detect."""
    env = os.environ if environ is None else environ
    if flag is not None:
        backend = parse_backend(flag)
        paths, notes = flat_store_paths(home, env)
        return BackendResolution(
            backend, paths.path_for(backend), "flag", f"--backend {flag}", flag, tuple(notes)
        )
    paths, warnings = flat_store_paths(home, env)
    value = env.get(BACKEND_ENV)
    if value is not None:
        backend = parse_env_backend(value)
        return BackendResolution(
            backend,
            paths.path_for(backend),
            "env",
            f"{BACKEND_ENV}={value}",
            value,
            tuple(warnings),
        )
    backend, reason = autodetect_backend(paths.home)
    if backend == "sqlite" and not anything_at(paths.sqlite) and anything_at(paths.graph):
        # amplihack-rs's `memory tree` and `memory clean` default to graph-db.
        backend = "graph-db"
        reason = (
            f"{reason}; but {paths.sqlite} does not exist and {paths.graph} does, "
            "which amplihack-rs's memory tree and clean open by default"
        )
    return BackendResolution(
        backend, paths.path_for(backend), "auto-detect", reason, "", tuple(warnings)
    )
