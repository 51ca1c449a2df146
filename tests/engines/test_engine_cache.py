"""`memexplorer engines`: other releases installed into the cache, cleanly or not at all.

Expected storage versions come from the fixtures' manifests (ladybug 0.17.1
wrote the crashed-writer store, storage version 41), not from the cache.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from memexplorer.cli.main import main
from memexplorer.storage.engine_cache import MARKER, cache_root, cached_engine, list_engines


def _cached_names(cache: Path) -> list[str]:
    return sorted(p.name for p in cache.iterdir()) if cache.exists() else []


def test_cache_lives_under_xdg_unless_overridden(monkeypatch, tmp_path):
    monkeypatch.delenv("MEMEXPLORER_ENGINE_CACHE")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_root() == tmp_path / "xdg" / "memexplorer" / "engines"
    monkeypatch.setenv("MEMEXPLORER_ENGINE_CACHE", str(tmp_path / "mine"))
    assert cache_root() == tmp_path / "mine"


@pytest.mark.parametrize(
    "text", ["sqlite==3.45", "ladybug", "ladybug>=0.17", "ladybug==latest", "kuzu==0.11.3; rm"]
)
def test_add_refuses_what_is_not_one_release(text, capsys, _private_engine_cache):
    assert main(["engines", "add", text]) == 2
    err = capsys.readouterr().err
    assert f"Not an engine release: {text!r}" in err and "ladybug==0.17.1" in err
    assert not _private_engine_cache.exists()


@pytest.mark.parametrize("text", ["ladybug==0.22.0", "kuzu==0.11.3"])
def test_add_refuses_memexplorers_own_release(text, capsys, _private_engine_cache):
    assert main(["engines", "add", text]) == 1
    assert "is memexplorer's own release" in capsys.readouterr().err
    assert not _private_engine_cache.exists()


def test_no_network_fails_cleanly_and_lists_nothing(monkeypatch, capsys, _private_engine_cache):
    # pip with no settings files and an index on a closed local port: unreachable
    monkeypatch.setenv("PIP_CONFIG_FILE", os.devnull)
    monkeypatch.setenv("PIP_INDEX_URL", "http://127.0.0.1:9/simple/")
    monkeypatch.setenv("PIP_FIND_LINKS", "")
    monkeypatch.setenv("PIP_RETRIES", "0")
    monkeypatch.setenv("PIP_TIMEOUT", "2")
    monkeypatch.setenv("PIP_NO_CACHE_DIR", "1")
    assert main(["engines", "add", "ladybug==0.17.1"]) == 1
    err = " ".join(capsys.readouterr().err.split())
    assert "error: Engine release not installed: Could not install ladybug==0.17.1" in err
    assert "Check the network and the package index" in err
    assert _cached_names(_private_engine_cache) == []  # the staging folder is gone too
    assert main(["engines", "list", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["engines"] == []


def test_folders_without_a_marker_or_staging_are_never_listed(_private_engine_cache, capsys):
    (_private_engine_cache / "ladybug-0.17.1" / "venv").mkdir(parents=True)  # stopped install
    staging = _private_engine_cache / ".staging-ladybug-0.18.3-x"
    staging.mkdir()
    marker = {"package": "ladybug", "release": "0.18.3", "storage_version": 42,
              "installed_at": "2026-11-25T00:00:00+00:00"}  # fmt: skip
    (staging / MARKER).write_text(json.dumps(marker))
    assert list_engines() == []
    assert main(["engines", "list"]) == 0
    assert capsys.readouterr().out.startswith("No engine releases in ")


def test_a_release_whose_python_is_gone_is_listed_broken_and_never_used(
    _private_engine_cache, capsys
):
    folder = _private_engine_cache / "ladybug-0.18.3"
    folder.mkdir(parents=True)
    marker = {"package": "ladybug", "release": "0.18.3", "storage_version": 42,
              "installed_at": "2026-11-25T00:00:00+00:00"}  # fmt: skip
    (folder / MARKER).write_text(json.dumps(marker))
    assert main(["engines", "list"]) == 0
    out = capsys.readouterr().out
    assert "ladybug==0.18.3  storage version 42" in out
    assert "BROKEN: its Python is gone; memexplorer engines remove ladybug==0.18.3" in out
    assert cached_engine("ladybug", 42) is None
    assert main(["engines", "remove", "ladybug==0.18.3"]) == 0
    assert _cached_names(_private_engine_cache) == []


def test_remove_of_a_release_not_there(capsys):
    assert main(["engines", "remove", "ladybug==0.18.3"]) == 1
    assert "ladybug==0.18.3 is not in the engine cache" in capsys.readouterr().err


@pytest.mark.slow
def test_unknown_release_names_the_ones_offered(capsys, _private_engine_cache):
    assert main(["engines", "add", "ladybug==0.0.0"]) == 1
    err = " ".join(capsys.readouterr().err.split())
    assert "No release ladybug==0.0.0 on the package index" in err
    assert "0.17.1" in err  # among the releases offered
    assert _cached_names(_private_engine_cache) == []


@pytest.mark.slow
def test_add_list_remove_a_real_release(capsys, _private_engine_cache, crashed_manifest):
    assert main(["engines", "add", "ladybug==0.17.1", "--json"]) == 0
    added = json.loads(capsys.readouterr().out)
    assert added["storage_version"] == crashed_manifest["ladybug_storage_version"]
    assert _cached_names(_private_engine_cache) == ["ladybug-0.17.1"]
    assert main(["engines", "add", "ladybug==0.17.1"]) == 0  # already there: kept
    capsys.readouterr()
    assert main(["engines", "list", "--json"]) == 0
    [listed] = json.loads(capsys.readouterr().out)["engines"]
    assert (listed["package"], listed["release"], listed["usable"]) == ("ladybug", "0.17.1", True)
    assert listed["storage_version"] == 41
    assert cached_engine("ladybug", 41) is not None and cached_engine("ladybug", 42) is None
    assert main(["engines", "remove", "ladybug==0.17.1"]) == 0
    assert _cached_names(_private_engine_cache) == []


@pytest.mark.slow
def test_adding_again_replaces_a_broken_install(capsys, _private_engine_cache):
    broken = _private_engine_cache / "ladybug-0.17.1"
    broken.mkdir(parents=True)
    marker = {"package": "ladybug", "release": "0.17.1", "storage_version": 41,
              "installed_at": "2026-11-25T00:00:00+00:00"}  # fmt: skip
    (broken / MARKER).write_text(json.dumps(marker))
    assert cached_engine("ladybug", 41) is None  # listed broken, never used
    assert main(["engines", "add", "ladybug==0.17.1"]) == 0
    engine = cached_engine("ladybug", 41)
    assert engine is not None and engine.usable and engine.folder == broken
    assert engine.installed_at != marker["installed_at"]
    assert _cached_names(_private_engine_cache) == ["ladybug-0.17.1"]
