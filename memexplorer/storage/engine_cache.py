"""Other Kuzu and LadybugDB releases, each in its own virtualenv in memexplorer's cache.

Why: a store keeps the storage version of the release that wrote it, and the
pinned releases (kuzu 0.11.3, ladybug 0.22.0) read only some versions and
replay only their own write-ahead log. The release that wrote a store reads
it, so memexplorer installs that release beside itself, never into its own
environment (two kuzu or ladybug releases cannot share one), and runs it in
a worker process (:mod:`.worker_process`).

An engine is installed into a staging folder, probed (imported, its version
and storage version asked), given a marker file, and only then renamed into
place: a folder without the marker is never listed, so a failed or stopped
install leaves nothing half-installed behind.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from memexplorer.storage.atomic_files import publish_folder
from memexplorer.storage.exceptions import EngineCacheError, InvalidInputError
from memexplorer.storage.storage_versions import KUZU_RELEASE, LADYBUG_PINNED
from memexplorer.storage.user_folders import cache_folder

__all__ = [
    "ENGINE_PACKAGES",
    "MARKER",
    "CachedEngine",
    "add_command",
    "add_engine",
    "cache_root",
    "cached_engine",
    "list_engines",
    "parse_requirement",
    "remove_engine",
]

ENGINE_PACKAGES = ("kuzu", "ladybug")
#: Written last, after the probe: a folder holding it is a usable engine.
MARKER = "memexplorer-engine.json"
_PINNED = {"kuzu": KUZU_RELEASE, "ladybug": LADYBUG_PINNED}
_RELEASE = re.compile(r"^\d+(\.\d+){1,3}$")
_PROBE = (
    "import json, sys; m = __import__(sys.argv[1]); "
    "print(json.dumps([str(m.__version__), int(m.storage_version)]))"
)


@dataclass(frozen=True)
class CachedEngine:
    """One installed release: where its Python is and what storage version it writes."""

    package: str
    release: str
    storage_version: int
    folder: Path
    installed_at: str

    @property
    def name(self) -> str:
        return f"{self.package}=={self.release}"

    @property
    def python(self) -> Path:
        return self.folder / "venv" / "bin" / "python"

    @property
    def usable(self) -> bool:
        """Whether its Python is still there (the interpreter it was made from may be gone)."""
        return self.python.exists()

    def to_dict(self) -> dict[str, object]:
        return {
            "package": self.package, "release": self.release,
            "storage_version": self.storage_version, "folder": str(self.folder),
            "installed_at": self.installed_at, "usable": self.usable,
        }  # fmt: skip


def cache_root() -> Path:
    """``$MEMEXPLORER_ENGINE_CACHE``, else ``$XDG_CACHE_HOME/memexplorer/engines``."""
    chosen = os.environ.get("MEMEXPLORER_ENGINE_CACHE")
    if chosen:
        return Path(chosen)
    return cache_folder() / "engines"


def add_command(package: str, release: str) -> str:
    """The command an operator runs to install ``release`` of ``package``."""
    return f"memexplorer engines add {package}=={release}"


def parse_requirement(text: str) -> tuple[str, str]:
    """``"ladybug==0.17.1"`` → ``("ladybug", "0.17.1")``; anything else is refused."""
    package, sep, release = text.strip().partition("==")
    package = package.strip().lower()
    release = release.strip()
    if not sep or package not in ENGINE_PACKAGES or not _RELEASE.match(release):
        raise InvalidInputError(
            f"Not an engine release: {text!r}",
            hint="Name one release of kuzu or ladybug, e.g. ladybug==0.17.1.",
        )
    return package, release


def _read_marker(folder: Path) -> CachedEngine | None:
    try:
        data = json.loads((folder / MARKER).read_text())
        return CachedEngine(
            data["package"], data["release"], int(data["storage_version"]), folder,
            data["installed_at"],
        )  # fmt: skip
    except (OSError, ValueError, KeyError, TypeError):
        return None


def list_engines() -> list[CachedEngine]:
    """Every engine in the cache with its marker (staging folders are never listed)."""
    root = cache_root()
    if not root.is_dir():
        return []
    found = [_read_marker(sub) for sub in sorted(root.iterdir()) if not sub.name.startswith(".")]
    return [engine for engine in found if engine is not None]


def cached_engine(package: str, storage_version: int | None) -> CachedEngine | None:
    """A usable cached release of ``package`` that writes ``storage_version``
    (the newest such release, when several are cached)."""
    matching = [
        e
        for e in list_engines()
        if e.package == package and e.storage_version == storage_version and e.usable
    ]
    matching.sort(key=lambda e: tuple(int(part) for part in e.release.split(".")))
    return matching[-1] if matching else None


def _pip_failure(requirement: str, stderr: str) -> EngineCacheError:
    lines = [line for line in stderr.strip().splitlines() if not line.startswith("WARNING")]
    last = lines[-1] if lines else "pip stopped without saying why"
    offered = re.search(r"\(from versions: ([^)]*)\)", stderr)
    if offered and offered.group(1).strip() not in ("", "none"):
        return EngineCacheError(
            f"No release {requirement} on the package index",
            hint=f"Releases offered: {offered.group(1).strip()}.",
        )
    return EngineCacheError(
        f"Could not install {requirement}: {last}",
        hint="Check the network and the package index (pip's settings); nothing was installed.",
    )


def _probe(python: Path, package: str) -> tuple[str, int]:
    result = subprocess.run(
        [str(python), "-c", _PROBE, package], capture_output=True, text=True, timeout=120
    )
    if result.returncode != 0:
        words = (result.stderr.strip().splitlines() or ["no message"])[-1]
        raise EngineCacheError(
            f"{package} was installed but does not load: {words}",
            hint="Nothing was kept. The release may not support this Python or machine.",
        )
    release, storage_version = json.loads(result.stdout.strip().splitlines()[-1])
    return str(release), int(storage_version)


def add_engine(requirement: str, *, progress: Callable[[str], None] | None = None) -> CachedEngine:
    """Install ``package==release`` into the cache, or return it if it is there."""
    package, release = parse_requirement(requirement)
    if _PINNED[package] == release:
        raise EngineCacheError(
            f"{package} {release} is memexplorer's own release; it needs no cache",
            hint="Add a release that wrote a store memexplorer refused (stats says which).",
        )
    root = cache_root()
    final = root / f"{package}-{release}"
    existing = _read_marker(final)
    if existing is not None and existing.usable:
        return existing
    import venv  # with importlib.metadata, a third of the start of stats: here only
    from importlib import metadata

    say = progress or (lambda _line: None)
    root.mkdir(parents=True, exist_ok=True)
    stage = Path(tempfile.mkdtemp(prefix=f".staging-{package}-{release}-", dir=root))
    try:
        say(f"making a virtualenv for {package}=={release}")
        venv.EnvBuilder(with_pip=True, symlinks=True).create(stage / "venv")
        python = stage / "venv" / "bin" / "python"
        arrow = metadata.version("pyarrow")
        say(f"installing {package}=={release} and pyarrow=={arrow}")
        pip = subprocess.run(
            [str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check",
             "--only-binary", ":all:", f"{package}=={release}", f"pyarrow=={arrow}"],
            capture_output=True, text=True, timeout=900,
        )  # fmt: skip
        if pip.returncode != 0:
            raise _pip_failure(f"{package}=={release}", pip.stderr)
        found, storage_version = _probe(python, package)
        if found != release:
            raise EngineCacheError(
                f"Asked for {package} {release}, but the index installed {found}",
                hint="Nothing was kept. Check pip's constraints and the index.",
            )
        engine = CachedEngine(
            package,
            release,
            storage_version,
            final,
            datetime.now(UTC).isoformat(timespec="seconds"),
        )
        marker = {k: v for k, v in engine.to_dict().items() if k not in ("folder", "usable")}
        (stage / MARKER).write_text(json.dumps(marker, indent=2) + "\n")
        raced = _read_marker(final)
        if raced is not None and raced.usable:  # another add of it finished first
            shutil.rmtree(stage, ignore_errors=True)
            return raced
        if final.exists():
            shutil.rmtree(final)  # a broken earlier install of the same release
        publish_folder(stage, final)
    except subprocess.TimeoutExpired as exc:
        shutil.rmtree(stage, ignore_errors=True)
        raise EngineCacheError(
            f"Installing {package}=={release} took too long ({exc.timeout:.0f} s)",
            hint="Nothing was kept. Try again when the network is faster.",
        ) from None
    except BaseException:
        shutil.rmtree(stage, ignore_errors=True)
        raise
    say(f"{package}=={release} writes storage version {storage_version}")
    return engine


def remove_engine(requirement: str) -> CachedEngine:
    """Delete one cached release (marker first: a stopped removal lists nothing)."""
    package, release = parse_requirement(requirement)
    folder = cache_root() / f"{package}-{release}"
    engine = _read_marker(folder)
    if engine is None and not folder.exists():
        raise EngineCacheError(
            f"{package}=={release} is not in the engine cache ({cache_root()})",
            hint="memexplorer engines list shows what is installed.",
        )
    (folder / MARKER).unlink(missing_ok=True)
    shutil.rmtree(folder, ignore_errors=True)
    if folder.exists():
        raise EngineCacheError(
            f"Could not remove {folder}", hint="Check its permissions and remove it by hand."
        )
    return engine or CachedEngine(package, release, 0, folder, "")
