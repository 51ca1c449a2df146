"""Which engine release reads or writes which storage version.

Measured by writing a store with each release (in its own virtualenv) and
reading its header, then opening it with the pinned release: ladybug 0.22.0
reads every LadybugDB version from 40 to 49 read-only and leaves the file
as it was, but a read-write open, even one that writes nothing, rewrites
the header to 49, after which the release that wrote the store refuses it
("Trying to read a database file with a different version").
"""

from __future__ import annotations

__all__ = [
    "KUZU_RELEASE",
    "LADYBUG_INSTALL",
    "LADYBUG_PINNED",
    "LADYBUG_READS",
    "LADYBUG_WRITES",
    "ladybug_release",
    "ladybug_storage_version",
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

#: Storage version → the ladybug releases checked that write it.
_LADYBUG_WRITERS = {
    40: ("0.15.4", "0.16.1"),
    41: ("0.17.1",),
    42: ("0.18.3",),
    43: ("0.19.1",),
    47: ("0.20.4", "0.21.2"),
    49: ("0.22.0",),
}


def ladybug_release(storage_version: int | None) -> str:
    """The ladybug release(s) that write ``storage_version``, for messages."""
    writers = _LADYBUG_WRITERS.get(storage_version or 0)
    if writers:
        return "ladybug " + " or ".join(writers)
    return f"the ladybug release that writes storage version {storage_version}"


def ladybug_storage_version(release: str) -> int | None:
    """The storage version a checked ladybug ``release`` writes (None: not checked)."""
    for version, releases in _LADYBUG_WRITERS.items():
        if release in releases:
            return version
    return None
