"""Shared fixtures: the reference stores, unpacked fresh for every test that asks."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest
from ci_skip_guard import pytest_make_collect_report, pytest_runtest_makereport  # noqa: F401
from run_isolation import pytest_configure, pytest_sessionfinish, pytest_unconfigure  # noqa: F401

FIXTURES = Path(__file__).parent / "fixtures"
TARBALL = FIXTURES / "reference-stores.tar.gz"


@pytest.fixture(scope="session")
def _pristine_stores(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The tarball unpacked once per session; tests only ever see copies of it."""
    target = tmp_path_factory.mktemp("pristine")
    with tarfile.open(TARBALL) as archive:
        archive.extractall(target, filter="data")
    return target


@pytest.fixture
def reference_stores(_pristine_stores: Path, tmp_path: Path) -> Path:
    """A private copy of the reference stores in this test's tmp_path."""
    target = tmp_path / "reference"
    shutil.copytree(_pristine_stores, target, symlinks=True)
    return target


@pytest.fixture(scope="session")
def manifest() -> dict:
    return json.loads((FIXTURES / "MANIFEST.json").read_text())


@pytest.fixture(scope="session")
def expected_retrieval() -> dict:
    return json.loads((FIXTURES / "expected_retrieval.json").read_text())


@pytest.fixture(scope="session")
def ladybug_stores(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The LadybugDB-era tarball unpacked once per session (read it, copy it to write)."""
    target = tmp_path_factory.mktemp("ladybug")
    with tarfile.open(FIXTURES / "ladybug-stores.tar.gz") as archive:
        archive.extractall(target, filter="data")
    return target


@pytest.fixture(scope="session")
def ladybug_manifest() -> dict:
    return json.loads((FIXTURES / "ladybug-MANIFEST.json").read_text())


@pytest.fixture(scope="session")
def _pristine_rust_graphdb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    target = tmp_path_factory.mktemp("rust-graphdb")
    with tarfile.open(FIXTURES / "rust-graphdb-home.tar.gz") as archive:
        archive.extractall(target, filter="data")
    return target


@pytest.fixture
def rust_graphdb_home(_pristine_rust_graphdb: Path, tmp_path: Path) -> Path:
    """A private copy of the Rust-era graph-db reference home (make_rust_graphdb_home.py);
    the copy's root holds ``home/.amplihack`` and the imported payloads in ``imports/``."""
    target = tmp_path / "rust-graphdb"
    shutil.copytree(_pristine_rust_graphdb, target, symlinks=True)
    return target


@pytest.fixture(scope="session")
def rust_graphdb_manifest() -> dict:
    return json.loads((FIXTURES / "rust-graphdb-MANIFEST.json").read_text())


@pytest.fixture(autouse=True)
def _private_home(
    monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory
) -> Path:
    """No test reads or writes the operator's home (~/.amplihack is the default
    store location, ~/.cache the demo's): HOME is a folder of the test's own,
    beside its tmp_path (tests list tmp_path and expect only their own files)."""
    folder = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(folder))
    return folder


@pytest.fixture(autouse=True)
def _no_user_settings(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """No test reads the operator's own settings file (see memexplorer.app.config)."""
    folder = tmp_path / "xdg-config"
    monkeypatch.setenv("XDG_CONFIG_HOME", str(folder))
    return folder


@pytest.fixture(autouse=True)
def _no_user_data(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """No test writes the operator's own histories (see memexplorer.operator.query_history)."""
    folder = tmp_path / "xdg-data-home"
    monkeypatch.setenv("XDG_DATA_HOME", str(folder))
    return folder


@pytest.fixture
def crashed_writer(tmp_path: Path) -> Path:
    """A private copy of the LadybugDB store whose older writer (ladybug 0.17.1) was
    killed: ``ladybug_db`` and the ``ladybug_db.wal`` the installed ladybug cannot replay."""
    with tarfile.open(FIXTURES / "ladybug-crashed-writer.tar.gz") as archive:
        archive.extractall(tmp_path / "crashed", filter="data")
    return tmp_path / "crashed" / "crashed_writer" / "ladybug_db"


@pytest.fixture(scope="session")
def crashed_manifest() -> dict:
    return json.loads((FIXTURES / "ladybug-crashed-MANIFEST.json").read_text())


@pytest.fixture(autouse=True)
def _no_user_home(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """No test writes the operator's own ~/.amplihack (an import's backups go to
    <home>/backups, and home defaults to $HOME/.amplihack)."""
    folder = tmp_path / "user-home"  # created only if something writes there
    monkeypatch.setenv("HOME", str(folder))
    return folder


@pytest.fixture(autouse=True)
def _private_index_cache(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """Keyword indexes (engine/keyword_index.py) go to the test's own cache folder."""
    folder = tmp_path / "index-cache"
    monkeypatch.setenv("MEMEXPLORER_INDEX_CACHE", str(folder))
    return folder


@pytest.fixture(autouse=True)
def _private_engine_cache(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """No test reads or installs into the operator's engine cache (memexplorer engines):
    each test starts with an empty one of its own."""
    folder = tmp_path / "engine-cache"
    monkeypatch.setenv("MEMEXPLORER_ENGINE_CACHE", str(folder))
    return folder


def _engine_cache_with(factory: pytest.TempPathFactory, name: str, release: str) -> Path:
    """A new engine cache with ``release`` installed by the real `memexplorer engines add`."""
    folder = factory.mktemp(name)
    env = {**os.environ, "MEMEXPLORER_ENGINE_CACHE": str(folder)}
    done = subprocess.run(
        [sys.executable, "-m", "memexplorer", "engines", "add", release],
        env=env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return folder


@pytest.fixture(scope="session")
def _installed_ladybug_0171(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An engine cache holding ladybug 0.17.1, installed from the package index once
    per session by `memexplorer engines add` (in a subprocess: the real command)."""
    return _engine_cache_with(tmp_path_factory, "engine-cache-0171", "ladybug==0.17.1")


@pytest.fixture
def ladybug_0171_cache(_installed_ladybug_0171: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The engine cache with ladybug 0.17.1 (shared by the tests that read with it)."""
    monkeypatch.setenv("MEMEXPLORER_ENGINE_CACHE", str(_installed_ladybug_0171))
    return _installed_ladybug_0171


@pytest.fixture(scope="session")
def _installed_kuzu_0101(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An engine cache holding kuzu 0.10.1 (storage version 38, folder layout)."""
    return _engine_cache_with(tmp_path_factory, "engine-cache-kuzu0101", "kuzu==0.10.1")


@pytest.fixture
def rust_sqlite_home(tmp_path: Path) -> Path:
    """A private copy of the amplihack-rs SQLite reference home (its tarball's root:
    ``home/.amplihack/hierarchical_memory/<agent>.db``, ``imports/``, ``rust_exports/``)."""
    target = tmp_path / "rust-sqlite"
    with tarfile.open(FIXTURES / "rust-sqlite-home.tar.gz") as archive:
        archive.extractall(target, filter="data")
        for member in archive.getmembers():  # the data filter leaves folders 0755
            if member.isdir():
                (target / member.name).chmod(member.mode & 0o777)
    return target


@pytest.fixture(scope="session")
def rust_sqlite_manifest() -> dict:
    return json.loads((FIXTURES / "rust-sqlite-MANIFEST.json").read_text())
