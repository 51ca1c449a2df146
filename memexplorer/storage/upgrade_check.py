"""Would a write leave a store in a newer storage version than the one it has?

A LadybugDB store written by an older ladybug release becomes unreadable to
that release once a newer one writes it (see :mod:`.storage_versions`). Opening
it read-write refuses that already (:class:`~.ladybug_store.LadybugStore`); a
write that builds a staged copy with the installed engine and renames it over
the store must refuse it too, before it starts, unless the operator allowed it.
"""

from __future__ import annotations

import importlib.metadata
from pathlib import Path

from memexplorer.storage.exceptions import StoreUpgradeRequired
from memexplorer.storage.storage_versions import ladybug_release, ladybug_storage_version
from memexplorer.storage.stores import sniff
from memexplorer.storage.writer_log import unreplayable_log

__all__ = ["installed_ladybug_storage_version", "refuse_store_upgrade"]


def installed_ladybug_storage_version() -> int | None:
    """The storage version the installed ladybug writes (None: ladybug not installed).

    Known releases are looked up without starting ladybug; another release is asked."""
    try:
        release = importlib.metadata.version("ladybug")
    except importlib.metadata.PackageNotFoundError:
        return None
    version = ladybug_storage_version(release)
    if version is not None:
        return version
    from memexplorer.storage.ladybug_store import installed_ladybug

    hello = installed_ladybug()
    return hello[1] if hello else None


def refuse_store_upgrade(store: Path, *, writes_version: int | None = None) -> None:
    """Raise :class:`StoreUpgradeRequired` when writing ``store`` would rewrite it in a
    newer storage version: ``writes_version``, by default the installed ladybug's.
    Kuzu and SQLite stores, and a store that does not exist yet, pass."""
    if not store.exists():
        return
    fmt = sniff(store)
    if fmt.engine != "ladybug" or fmt.storage_version is None:
        return
    # One story for one store: an older writer's log left unreplayed is what it is,
    # said before (and instead of) the upgrade that writing would also be.
    left_behind = unreplayable_log(fmt)
    if left_behind is not None:
        raise left_behind.error()
    installed = writes_version if writes_version is not None else (
        installed_ladybug_storage_version()
    )  # fmt: skip
    if installed is None or fmt.storage_version >= installed:
        return
    raise StoreUpgradeRequired(
        store,
        f"Writing this store would rewrite it from storage version {fmt.storage_version} to "
        f"{installed}, and {ladybug_release(fmt.storage_version)}, which wrote it, could no "
        "longer open it",
        found=fmt.storage_version,
        installed=installed,
        hint=(
            "Reading needs no upgrade. To write, switch the store to writing in the app (w): "
            "it asks first and saves a copy of the file before upgrading."
        ),
    )
