"""The storage-version tables are the committed measurements, release for release.

tools/measure_storage_versions.py had each release write a store and read its
header; tools/measurements/storage_versions.json holds what it found.
"""

from __future__ import annotations

import json
from pathlib import Path

from memexplorer.storage.storage_versions import (
    KUZU_RELEASE,
    KUZU_WRITERS,
    LADYBUG_PINNED,
    LADYBUG_READS,
    LADYBUG_WRITERS,
    LADYBUG_WRITES,
    newest_writer,
    written_by,
)
from memexplorer.storage.stores import KUZU_STORAGE_VERSION

MEASURED = Path(__file__).parents[2] / "tools" / "measurements" / "storage_versions.json"


def _measured() -> list[dict]:
    return json.loads(MEASURED.read_text())["releases"]


def test_tables_are_the_measurements():
    tables = {"kuzu": KUZU_WRITERS, "ladybug": LADYBUG_WRITERS}
    listed = {
        (package, version, release)
        for package, table in tables.items()
        for version, releases in table.items()
        for release in releases
    }
    measured = {(e["package"], e["storage_version"], e["release"]) for e in _measured()}
    assert listed == measured


def test_each_release_says_what_its_header_says():
    for entry in _measured():
        assert entry["reported_storage_version"] == entry["storage_version"], entry
        assert entry["magic"] == {"kuzu": "KUZU", "ladybug": "LBUG"}[entry["package"]]


def test_only_kuzu_0_11_writes_a_single_file():
    for entry in _measured():
        single = entry["package"] == "ladybug" or entry["release"].startswith("0.11.")
        assert entry["layout"] == ("file" if single else "directory"), entry


def test_the_pinned_releases_write_what_memexplorer_assumes():
    assert KUZU_RELEASE in KUZU_WRITERS[KUZU_STORAGE_VERSION]
    assert LADYBUG_WRITERS[LADYBUG_WRITES] == (LADYBUG_PINNED,)


def test_wording_of_writers():
    assert written_by("ladybug", 41) == "ladybug 0.17.0 or 0.17.1"
    assert written_by("ladybug", 47) == "ladybug 0.20.0 to 0.21.2"
    assert written_by("kuzu", 30) == "a kuzu release not measured (storage version 30)"
    assert newest_writer("ladybug", 41) == "0.17.1"
    assert newest_writer("kuzu", 38) == "0.10.1"
    assert newest_writer("kuzu", 30) is None


def test_the_pinned_releases_read_what_the_tables_say_without_changing_a_byte():
    """Each measured store opened read-only by memexplorer's own release of its package."""
    for entry in _measured():
        read = entry["pinned_read"]
        assert read["unchanged"] is True, entry
        if entry["package"] == "ladybug":
            assert entry["storage_version"] in LADYBUG_READS
            assert read == {"rows": 1, "unchanged": True}, entry
        elif entry["storage_version"] == KUZU_STORAGE_VERSION:
            assert read == {"rows": 1, "unchanged": True}, entry
        else:  # an older kuzu folder: kuzu 0.11.3 refuses it, as require_kuzu_readable does
            assert "Database path cannot be a directory" in read["error"], entry
