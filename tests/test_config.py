"""The settings file: every key valid and invalid, unknown keys, wrong types, a
missing file, broken TOML."""

from __future__ import annotations

from pathlib import Path

import pytest

from memexplorer.app.config import CONFIRM_ACTIONS, Config, ConfigError, config_path, load_config


def _write(folder: Path, text: str) -> Path:
    path = folder / "memexplorer" / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_discovery_follows_xdg_then_home(_no_user_settings, monkeypatch, tmp_path):
    assert config_path() == _no_user_settings / "memexplorer" / "config.toml"
    monkeypatch.delenv("XDG_CONFIG_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "someone"))
    assert config_path() == tmp_path / "someone" / ".config" / "memexplorer" / "config.toml"
    monkeypatch.setenv("XDG_CONFIG_HOME", "relative/is/ignored")
    assert config_path() == tmp_path / "someone" / ".config" / "memexplorer" / "config.toml"


def test_a_missing_file_gives_the_defaults(_no_user_settings):
    config = load_config()
    assert config == Config(path=_no_user_settings / "memexplorer" / "config.toml")
    assert config.problems == () and config.error() is None
    assert config.theme == "textual-dark" and config.page_size == 100 and config.home is None
    assert all(config.asks_first(action) for action in CONFIRM_ACTIONS)


def test_every_setting_valid(_no_user_settings, tmp_path):
    path = _write(
        _no_user_settings,
        f"""
        theme = "memexplorer"
        home = "{tmp_path}/stores"
        page_size = 250

        [keys]
        sort = "z"
        help = "f2,question_mark"

        [confirm]
        clean = false
        restore = true
        """,
    )
    config = load_config()
    assert config.problems == ()
    assert config.path == path
    assert config.theme == "memexplorer"
    assert config.home == tmp_path / "stores"
    assert config.page_size == 250
    assert config.keymap == {"sort": "z", "help": "f2,question_mark"}
    assert not config.asks_first("clean")
    assert config.asks_first("restore") and config.asks_first("import")
    hash(config)  # frozen and hashable, so it can be shared safely


def test_home_with_a_tilde_is_expanded(_no_user_settings, monkeypatch, tmp_path):
    monkeypatch.setenv("HOME", str(tmp_path))
    _write(_no_user_settings, 'home = "~/.amplihack"\ntheme = "nord"')
    config = load_config()
    assert config.home == tmp_path / ".amplihack" and config.theme == "nord"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('page_size = "big"', 'page_size must be an integer from 10 to 5000, not "big"'),
        ("page_size = 9", "page_size must be an integer from 10 to 5000, not 9"),
        ("page_size = 5001", "page_size must be an integer from 10 to 5000, not 5001"),
        ("page_size = 12.5", "page_size must be an integer from 10 to 5000, not 12.5"),
        ("page_size = true", "page_size must be an integer from 10 to 5000, not true"),
        ('theme = "neon"', "theme must be one of memexplorer, textual-dark,"),
        ("theme = 3", "not 3"),
        ('home = "stores"', 'home must be a path starting with / or ~, not "stores"'),
        ("home = [1]", "home must be a path starting with / or ~, not a list"),
        ('keys = "x"', 'keys must be a table ([section] or { ... }), not "x"'),
        ('[keys]\nquitt = "x"', "keys.quitt is not a command id"),
        ("[keys]\nsort = 3", 'keys.sort must be keys like "ctrl+o" or "o,enter"'),
        ('[keys]\nsort = ""', 'keys.sort must be keys like "ctrl+o" or "o,enter"'),
        ('[keys]\nsort = "z, x"', 'keys.sort must be keys like "ctrl+o" or "o,enter"'),
        ('[keys]\nsort = "o"', 'keys.sort: "o" is already the key of open_row (Open)'),
        ('[keys]\nquit = "G"', 'keys.quit: "G" is already the key of last_page (Last page)'),
        ("confirm = false", "confirm must be a table ([section] or { ... }), not false"),
        ("[confirm]\nnuke = true", "confirm.nuke is unknown; the actions are clean, import"),
        ('[confirm]\nclean = "no"', 'confirm.clean must be true or false, not "no"'),
        ("colour = 1", "unknown setting 'colour'; the settings are theme, keys, home"),
        ("[page]\nsize = 20", "unknown setting 'page'"),
    ],
)
def test_invalid_settings_are_named_and_fall_back(_no_user_settings, text, message):
    valid = "page_size = 20" if text.startswith("theme") else 'theme = "dracula"'
    path = _write(_no_user_settings, f"{valid}\n{text}\n")
    config = load_config()
    assert len(config.problems) == 1
    assert config.problems[0].startswith(f"{path}: ")
    assert message in config.problems[0]
    # The wrong setting falls back to its default; the valid one stays.
    if text.startswith("theme"):
        assert config.theme == "textual-dark" and config.page_size == 20
    else:
        assert config.theme == "dracula"
        assert config.page_size == 100
    assert config.keymap == {} and config.home is None
    assert config.confirm == frozenset(CONFIRM_ACTIONS)
    error = config.error()
    assert isinstance(error, ConfigError) and message in error.describe()


def test_every_problem_is_reported_at_once(_no_user_settings):
    _write(_no_user_settings, 'page_size = 1\ntheme = "x"\ncolor = "red"\n')
    problems = load_config().problems
    assert len(problems) == 3
    assert [p.split(": ", 1)[1].split()[0] for p in problems] == ["page_size", "theme", "unknown"]


def test_broken_toml_names_the_line(_no_user_settings):
    path = _write(_no_user_settings, 'theme = "nord"\npage_size = 50\nhome = \n')
    config = load_config()
    assert config == Config(path=path, problems=config.problems)
    assert len(config.problems) == 1
    assert config.problems[0].startswith(f"{path}: not valid TOML: ")
    assert "line 3" in config.problems[0]


def test_an_unreadable_file_is_a_problem_not_a_crash(_no_user_settings):
    path = _write(_no_user_settings, "")
    path.write_bytes(b"theme = \xff\n")
    assert load_config().problems[0].startswith(f"{path}: cannot be read")
