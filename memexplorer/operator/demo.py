"""A demo home written with memexplorer's own engine, to try the tools on.

Laid out as a real ``.amplihack`` home, every store written through the
engine's public classes:

- ``hierarchical_memory/<agent>/graph_db`` (ops-agent, research-agent) and
  ``.../kuzu_db`` (support-agent, the legacy name): HierarchicalMemory with
  episodes, derived facts, contradictions and SUPERSEDES/TRANSITIONED_TO chains;
- ``cognitive_memory/ops-agent/cognitive_db``: CognitiveMemory, all six types;
- ``memory/<agent>/experiences.db`` (ops-agent, support-agent; SQLite) and
  ``memory/research-agent/kuzu_db`` (Kuzu): ExperienceStore;
- ``memory.db``: flat session memory (four sessions, four agents, one expired row).

A few fake credentials (AWS, GitHub, OpenAI, Slack, database URLs, a private
key), each marked FAKE in its text, give ``memexplorer audit`` something to find.
The home is built in a private staging folder and renamed into place, so it
exists whole or not at all; files are 0o600 and folders 0o700.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from pathlib import Path

from memexplorer.memory.demo_hierarchical import write_hierarchical_stores
from memexplorer.memory.demo_records import (
    write_cognitive_store,
    write_experience_stores,
    write_flat_store,
)

__all__ = ["write_demo_home"]

_STAGING_SUFFIX = ".partial"
#: A staging folder untouched this long belongs to a build that was killed.
_STALE_SECONDS = 600


def _private_parents(folder: Path) -> None:
    """Create ``folder`` and its missing parents as 0o700 (mkdir's parents ignore mode)."""
    missing = []
    while not folder.exists():
        missing.append(folder)
        folder = folder.parent
    for path in reversed(missing):
        path.mkdir(mode=0o700, exist_ok=True)


def _staging_prefix(home: Path) -> str:
    """``.amplihack.`` for ``.amplihack``: staging folders are hidden, named after the home."""
    return f".{home.name.lstrip('.')}."


def _remove_stale_staging(home: Path) -> None:
    """Drop staging folders that killed builds left beside ``home``."""
    for candidate in home.parent.glob(f"{_staging_prefix(home)}*{_STAGING_SUFFIX}"):
        try:
            if time.time() - candidate.stat().st_mtime > _STALE_SECONDS:
                shutil.rmtree(candidate, ignore_errors=True)
        except OSError:
            continue


def _make_private(root: Path) -> None:
    """Folders 0o700 and files 0o600: memories are the user's alone."""
    for folder, _dirs, files in os.walk(root):
        os.chmod(folder, 0o700)
        for name in files:
            os.chmod(Path(folder) / name, 0o600)


def _write_stores(home: Path) -> None:
    write_hierarchical_stores(home)
    write_cognitive_store(home)
    write_experience_stores(home)
    write_flat_store(home)


def write_demo_home(home: str | Path) -> Path:
    """Write a demo ``.amplihack`` home at ``home`` (which must not exist yet).

    It is built in a uniquely named sibling folder (0o700 from the start) and
    renamed into place, so a failed or interrupted build never leaves a home
    that later runs would take as ready, and two builds at once do not meet.
    """
    home = Path(home)
    if home.exists():
        raise FileExistsError(f"{home} exists already")
    _private_parents(home.parent)
    _remove_stale_staging(home)
    staging = Path(
        tempfile.mkdtemp(prefix=_staging_prefix(home), suffix=_STAGING_SUFFIX, dir=home.parent)
    )
    try:
        _write_stores(staging)
        _make_private(staging)
        try:
            staging.rename(home)
        except OSError:
            if not home.exists():
                raise
            # Another build finished first; its home is as complete as ours.
            shutil.rmtree(staging, ignore_errors=True)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return home
