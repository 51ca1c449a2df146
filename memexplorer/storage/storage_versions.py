"""Which engine release reads or writes which storage version.

The writers' table is measured by tools/measure_storage_versions.py (each
release writes a store in its own virtualenv, the header is read; results
in tools/measurements/storage_versions.json, which a test compares with the
tables below). Kuzu releases before 0.11 write a folder, not a file. The tool
also opens each store with the pinned release, read-only: ladybug 0.22.0
reads every LadybugDB version from 40 to 49 and leaves the file as it was;
kuzu 0.11.3 reads 39 only. Measured by hand: a ladybug read-write open, even
one that writes nothing, rewrites the header to 49, after which the release
that wrote the store refuses it ("Trying to read a database file with a
different version").
"""

from __future__ import annotations

__all__ = [
    "KUZU_RELEASE",
    "KUZU_WRITERS",
    "LADYBUG_INSTALL",
    "LADYBUG_PINNED",
    "LADYBUG_READS",
    "LADYBUG_WRITERS",
    "LADYBUG_WRITES",
    "ladybug_release",
    "ladybug_storage_version",
    "newest_writer",
    "written_by",
]

#: The kuzu release memexplorer depends on (storage version 39).
KUZU_RELEASE = "0.11.3"
#: The ladybug release of the ``memexplorer[ladybug]`` extra.
LADYBUG_PINNED = "0.22.0"
LADYBUG_INSTALL = "pip install 'memexplorer[ladybug]'"
#: Storage versions the pinned ladybug opens (read-only without change).
LADYBUG_READS = range(40, 50)
#: The storage version the pinned ladybug writes, and the only one whose
#: write-ahead log it replays (measured: 0.22.0 on a 0.17.1 writer's log says
#: "Corrupted wal file. Read out invalid WAL record type.").
LADYBUG_WRITES = 49

#: Storage version → the kuzu releases measured that write it (before 0.11: a folder;
#: of 0.4 to 0.8 only each minor's last release was measured).
KUZU_WRITERS: dict[int, tuple[str, ...]] = {
    27: ("0.4.2",),
    28: ("0.5.0", "0.6.1"),
    34: ("0.7.1",),
    36: ("0.8.2",),
    37: ("0.9.0",),
    38: ("0.10.0", "0.10.1"),
    39: ("0.11.0", "0.11.1", "0.11.2", "0.11.3"),
}
#: Storage version → the ladybug releases that write it (every release from 0.15.3,
#: the first that is not a placeholder).
LADYBUG_WRITERS: dict[int, tuple[str, ...]] = {
    40: ("0.15.3", "0.15.4", "0.16.0", "0.16.1"),
    41: ("0.17.0", "0.17.1"),
    42: ("0.18.0", "0.18.1", "0.18.2", "0.18.3"),
    43: ("0.19.0", "0.19.1"),
    47: ("0.20.0", "0.20.1", "0.20.2", "0.20.3", "0.20.4", "0.21.0", "0.21.1", "0.21.2"),
    49: ("0.22.0",),
}
_WRITERS = {"kuzu": KUZU_WRITERS, "ladybug": LADYBUG_WRITERS}


def newest_writer(package: str, storage_version: int | None) -> str | None:
    """The newest measured release of ``package`` that writes ``storage_version``."""
    writers = _WRITERS.get(package, {}).get(storage_version or 0)
    return writers[-1] if writers else None


def written_by(package: str, storage_version: int | None) -> str:
    """Which releases write ``storage_version``: ``"ladybug 0.17.0 or 0.17.1"``,
    ``"ladybug 0.20.0 to 0.21.2"`` (every release between, as measured)."""
    writers = _WRITERS.get(package, {}).get(storage_version or 0)
    if writers:
        joined = " or ".join(writers) if len(writers) <= 2 else f"{writers[0]} to {writers[-1]}"
        return f"{package} {joined}"
    return f"a {package} release not measured (storage version {storage_version})"


def ladybug_release(storage_version: int | None) -> str:
    """The ladybug release(s) that write ``storage_version``, for messages."""
    if storage_version in LADYBUG_WRITERS:
        return written_by("ladybug", storage_version)
    return f"the ladybug release that writes storage version {storage_version}"


def ladybug_storage_version(release: str) -> int | None:
    """The storage version a measured ladybug ``release`` writes (None: not measured)."""
    for version, releases in LADYBUG_WRITERS.items():
        if release in releases:
            return version
    return None
