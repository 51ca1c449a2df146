"""memexplorer's folders in the user's account, found with platformdirs: on Linux
the very paths the hand-written XDG code gave, and every environment variable
that chose a folder before still chooses it. Expected paths are written out by
hand from the XDG base directory spec."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from memexplorer.app.config import config_path
from memexplorer.app.profile_choices import ProfileChoices
from memexplorer.cli.commands.demo import demo_home
from memexplorer.memory.keyword_index import index_cache_root
from memexplorer.operator.query_history import data_folder as history_folder
from memexplorer.storage.engine_cache import cache_root
from memexplorer.storage.user_folders import cache_folder, config_folder, data_folder

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="the XDG paths are Linux's")

XDG = ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME")


@pytest.fixture
def home(monkeypatch, tmp_path) -> Path:
    """A user with no XDG variable and no memexplorer override set."""
    folder = tmp_path / "someone"
    monkeypatch.setenv("HOME", str(folder))
    for name in (*XDG, "MEMEXPLORER_INDEX_CACHE", "MEMEXPLORER_ENGINE_CACHE"):
        monkeypatch.delenv(name, raising=False)
    return folder


def test_without_xdg_the_folders_are_the_spec_defaults_under_home(home):
    assert config_folder() == home / ".config" / "memexplorer"
    assert data_folder() == home / ".local" / "share" / "memexplorer"
    assert cache_folder() == home / ".cache" / "memexplorer"


def test_every_file_and_folder_memexplorer_keeps_is_where_it_was(home):
    assert config_path() == home / ".config" / "memexplorer" / "config.toml"
    assert history_folder() == home / ".local" / "share" / "memexplorer"
    assert ProfileChoices().path == (
        home / ".local" / "share" / "memexplorer" / "retrieval_profiles.json"
    )
    assert demo_home() == home / ".cache" / "memexplorer" / "demo" / ".amplihack"
    assert index_cache_root() == home / ".cache" / "memexplorer" / "keyword-index"
    assert cache_root() == home / ".cache" / "memexplorer" / "engines"


def test_absolute_xdg_folders_are_followed(home, monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "conf"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    assert config_path() == tmp_path / "conf" / "memexplorer" / "config.toml"
    assert history_folder() == tmp_path / "data" / "memexplorer"
    assert ProfileChoices().path == tmp_path / "data" / "memexplorer" / "retrieval_profiles.json"
    assert demo_home() == tmp_path / "cache" / "memexplorer" / "demo" / ".amplihack"
    assert index_cache_root() == tmp_path / "cache" / "memexplorer" / "keyword-index"
    assert cache_root() == tmp_path / "cache" / "memexplorer" / "engines"


@pytest.mark.parametrize("name", XDG)
def test_a_relative_xdg_folder_is_ignored(home, monkeypatch, name):
    """The spec: relative paths are invalid and should be ignored."""
    monkeypatch.setenv(name, "relative/folder")
    assert config_folder() == home / ".config" / "memexplorer"
    assert data_folder() == home / ".local" / "share" / "memexplorer"
    assert cache_folder() == home / ".cache" / "memexplorer"


def test_memexplorer_s_own_cache_variables_win_over_xdg(home, monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("MEMEXPLORER_INDEX_CACHE", str(tmp_path / "index"))
    monkeypatch.setenv("MEMEXPLORER_ENGINE_CACHE", str(tmp_path / "engines"))
    assert index_cache_root() == tmp_path / "index"
    assert cache_root() == tmp_path / "engines"
    # an empty one means unset
    monkeypatch.setenv("MEMEXPLORER_INDEX_CACHE", "")
    monkeypatch.setenv("MEMEXPLORER_ENGINE_CACHE", "")
    assert index_cache_root() == tmp_path / "cache" / "memexplorer" / "keyword-index"
    assert cache_root() == tmp_path / "cache" / "memexplorer" / "engines"


def test_finding_a_folder_creates_nothing(home):
    config_folder(), data_folder(), cache_folder(), config_path(), demo_home()
    assert not home.exists()
