"""The settings file: one TOML file in the user config folder, read once at start.

``$XDG_CONFIG_HOME/memexplorer/config.toml`` (else ``~/.config/memexplorer/config.toml``;
the folder comes from :mod:`memexplorer.storage.user_folders`)
is validated into a frozen :class:`Config`. A missing file means the defaults. A
wrong setting never stops the app: it is reported (naming the file, the key and
what is allowed) and its default is used instead, while the valid settings stay.
Unknown keys are reported too, so a typo cannot pass silently. The app never
writes the file. See docs/config.md.
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import date, time
from pathlib import Path
from typing import Any

from textual.theme import BUILTIN_THEMES

from memexplorer.app.every_command import commands_by_id, same_screen
from memexplorer.app.theme import THEME_NAME
from memexplorer.storage.exceptions import MemoryError
from memexplorer.storage.user_folders import config_folder

__all__ = [
    "CONFIRM_ACTIONS",
    "DEFAULT_PAGE_SIZE",
    "DEFAULT_THEME",
    "PAGE_SIZES",
    "Config",
    "ConfigError",
    "config_path",
    "load_config",
    "parse_config",
]

DEFAULT_THEME = "textual-dark"
DEFAULT_PAGE_SIZE = 100
PAGE_SIZES = range(10, 5001)
#: Destructive actions that can ask before they run (each defaults to asking).
CONFIRM_ACTIONS = ("clean", "import", "redact", "restore")
THEMES = (THEME_NAME, *BUILTIN_THEMES)
_COMMANDS = commands_by_id()


class ConfigError(MemoryError):
    """The settings file has problems; the app carries on with defaults for them."""

    title = "Settings not applied"
    hint = "memexplorer uses the default for each of these. Fix the file and restart."


@dataclass(frozen=True)
class Config:
    """Validated settings; every field has the default a missing file gives."""

    theme: str = DEFAULT_THEME
    #: Command id → key string, for ``App.set_keymap`` (pairs, so the config is hashable).
    keys: tuple[tuple[str, str], ...] = ()
    #: What the app opens without a path (None: ~/.amplihack).
    home: Path | None = None
    page_size: int = DEFAULT_PAGE_SIZE
    #: The destructive actions that ask before they run.
    confirm: frozenset[str] = frozenset(CONFIRM_ACTIONS)
    #: The file these settings came from, and what was wrong in it.
    path: Path | None = None
    problems: tuple[str, ...] = field(default=())

    @property
    def keymap(self) -> dict[str, str]:
        return dict(self.keys)

    def asks_first(self, action: str) -> bool:
        """Whether a destructive action (one of CONFIRM_ACTIONS) asks before it runs."""
        return action in self.confirm

    def error(self) -> ConfigError | None:
        """All problems as one error for the error modal, or None."""
        return ConfigError("\n".join(self.problems)) if self.problems else None


def config_path() -> Path:
    """Where the settings file is looked for (it need not exist)."""
    return config_folder() / "config.toml"


def load_config(path: Path | None = None) -> Config:
    """Read and validate the settings file; never raises for a bad or missing file."""
    path = path or config_path()
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return Config(path=path)
    except (OSError, UnicodeDecodeError) as exc:
        return Config(path=path, problems=(f"{path}: cannot be read ({exc})",))
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        return Config(path=path, problems=(f"{path}: not valid TOML: {exc}",))
    return parse_config(data, path)


class _Invalid(ValueError):
    """One setting is wrong; the message says what is allowed."""


def parse_config(data: Mapping[str, Any], path: Path) -> Config:
    """Validate the parsed TOML into a Config, collecting every problem."""
    values: dict[str, Any] = {}
    problems: list[str] = []
    for key, value in data.items():
        parse = _PARSERS.get(key)
        if parse is None:
            allowed = ", ".join(_PARSERS)
            problems.append(f"{path}: unknown setting {key!r}; the settings are {allowed}")
            continue
        try:
            values[key] = parse(value)
        except _Invalid as exc:
            problems.append(f"{path}: {key}{exc}")
    if "keys" in values:
        clashes = _clashes(dict(values["keys"]))
        problems.extend(f"{path}: keys.{clash}" for clash in clashes)
        if clashes:
            del values["keys"]
    return Config(**values, path=path, problems=tuple(problems))


def _show(value: Any) -> str:
    """A value as it would be written in TOML, for messages."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, date | time):
        return value.isoformat()
    return str(value)


def _theme(value: Any) -> str:
    if not isinstance(value, str) or value not in THEMES:
        raise _Invalid(f" must be one of {', '.join(THEMES)}, not {_show(value)}")
    return value


def _page_size(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value not in PAGE_SIZES:
        raise _Invalid(f" must be an integer from 10 to 5000, not {_show(value)}")
    return value


def _home(value: Any) -> Path:
    if not isinstance(value, str) or not value.startswith(("/", "~")):
        raise _Invalid(f" must be a path starting with / or ~, not {_show(value)}")
    return Path(value).expanduser()


def _table(value: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise _Invalid(f" must be a table ([section] or {{ ... }}), not {_show(value)}")
    return value


def _keys(value: Any) -> tuple[tuple[str, str], ...]:
    pairs = []
    for command, keys in _table(value).items():
        if command not in _COMMANDS:
            raise _Invalid(
                f".{command} is not a command id; see the help screen (f1) or docs/config.md"
            )
        parts = keys.split(",") if isinstance(keys, str) else []
        if not parts or any(not part or part != part.strip() or " " in part for part in parts):
            raise _Invalid(
                f'.{command} must be keys like "ctrl+o" or "o,enter" (comma-separated, '
                f"no spaces), not {_show(keys)}"
            )
        pairs.append((command, keys))
    return tuple(pairs)


def _confirm(value: Any) -> frozenset[str]:
    asks = set(CONFIRM_ACTIONS)
    for action, ask in _table(value).items():
        if action not in CONFIRM_ACTIONS:
            raise _Invalid(f".{action} is unknown; the actions are {', '.join(CONFIRM_ACTIONS)}")
        if not isinstance(ask, bool):
            raise _Invalid(f".{action} must be true or false, not {_show(ask)}")
        (asks.add if ask else asks.discard)(action)
    return frozenset(asks)


def _clashes(keymap: dict[str, str]) -> list[str]:
    """Remapped keys that another command of the same screen (or of every screen)
    already has: Textual would quietly drop one of the two."""
    found = []
    for command_id, keys in keymap.items():
        for other in same_screen(command_id):
            taken = set(keymap.get(other.id, other.key).split(","))
            for key in sorted(taken & set(keys.split(","))):
                found.append(f'{command_id}: "{key}" is already the key of {other.id} '
                             f"({other.title}); remap that too, or choose another key")  # fmt: skip
    return found


_PARSERS: dict[str, Callable[[Any], Any]] = {
    "theme": _theme,
    "keys": _keys,
    "home": _home,
    "page_size": _page_size,
    "confirm": _confirm,
}
