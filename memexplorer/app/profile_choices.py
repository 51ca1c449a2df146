"""The retrieval profile the query box last used on each store, kept across restarts.

Why: an operator looking at a Rust agent's store wants ``amplihack-rs`` every
time, without switching again. One JSON object (store path → profile) in
``$XDG_DATA_HOME/memexplorer/retrieval_profiles.json``, private (0o600, folder
0o700), rewritten whole through a temporary file. Unreadable or unknown
entries read as the default profile: the choice is a convenience, never an error.
"""

from __future__ import annotations

import json
from pathlib import Path

from memexplorer.memory.retrieval_profiles import DEFAULT_PROFILE, PROFILES
from memexplorer.operator.query_history import data_folder, write_private_text

__all__ = ["ProfileChoices"]

FILE_NAME = "retrieval_profiles.json"


class ProfileChoices:
    """Store path → the profile last chosen for it."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or data_folder() / FILE_NAME

    def _load(self) -> dict[str, str]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        if not isinstance(data, dict):
            return {}
        return {str(k): v for k, v in data.items() if isinstance(v, str) and v in PROFILES}

    def get(self, store: Path, default: str = DEFAULT_PROFILE) -> str:
        return self._load().get(str(store), default)

    def set(self, store: Path, profile: str) -> None:
        choices = self._load()
        choices[str(store)] = profile
        text = json.dumps(choices, indent=1, sort_keys=True)
        write_private_text(self.path, text)
