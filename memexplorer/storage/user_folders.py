"""memexplorer's own folders in the user's account: settings, data and cache.

platformdirs finds them. On Linux these are the XDG base directories, each with
``memexplorer`` appended: ``$XDG_CONFIG_HOME`` (else ``~/.config``),
``$XDG_DATA_HOME`` (else ``~/.local/share``) and ``$XDG_CACHE_HOME`` (else
``~/.cache``); a relative value is ignored, as the XDG spec says. On macOS and
Windows they are the platform's own places. Nothing is created here: each
writer makes its folder, private, when it first writes.

The stores agents write (``~/.amplihack``) are not memexplorer's: they are not
found here.
"""

from __future__ import annotations

from pathlib import Path

from platformdirs import user_cache_path, user_config_path, user_data_path

__all__ = ["cache_folder", "config_folder", "data_folder"]

APP = "memexplorer"


def config_folder() -> Path:
    """Where the settings file lives (``config.toml``)."""
    return user_config_path(APP, appauthor=False)


def data_folder() -> Path:
    """Where what memexplorer keeps for the user lives: query and console histories,
    the retrieval profile chosen per store."""
    return user_data_path(APP, appauthor=False)


def cache_folder() -> Path:
    """Where what can be made again lives: the demo home, the keyword index, the
    engine releases installed for older stores."""
    return user_cache_path(APP, appauthor=False)
