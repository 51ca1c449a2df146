"""Paths, agent folders, agent names and table cells that read as rich markup or an
emoji code are printed as they are (tests/hostile_names.py builds the home): before,
``[/]`` in a path raised MarkupError out of stats, clean, export, migrate and backups,
and ``[bold]x[/bold]`` in a name lost its brackets."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hostile_names import (
    HOSTILE_AGENT_FOLDER,
    HOSTILE_AGENTS,
    HOSTILE_OWNER,
    HOSTILE_PATH_TEXT,
    HOSTILE_SESSION,
    build_hostile_home,
)


def run(*args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    result = subprocess.run(  # piped, without a width: nothing is folded into two lines
        [sys.executable, "-m", "memexplorer", *args], capture_output=True, text=True, env=env
    )
    assert "Traceback" not in result.stderr, result.stderr
    assert "\N{FIRE}" not in result.stdout
    return result


def cells(line: str) -> list[str]:
    """A text table row's cells (rich draws │ between them)."""
    return [cell.strip() for cell in line.split("│")]


@pytest.fixture
def home(tmp_path: Path, reference_stores: Path) -> Path:
    return build_hostile_home(tmp_path, reference_stores)


def test_stats_shows_paths_agents_and_folders_as_stored(home: Path):
    result = run("stats", str(home))
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    heads = [line.split("  ")[0] for line in lines if line.startswith("/")]
    assert heads == [
        f"{home}/hierarchical_memory/{HOSTILE_AGENT_FOLDER}/kuzu_db",
        f"{home}/memory.db",
        f"{home}/memory_graph.db",
    ]
    agents = [cells(line)[0] for line in lines if "│" in line]
    # sorted by name: ':' < '[' < 'b'
    flat = [":fire:", "[/]", "[bold]x[/bold]", "[link=https://example.com]l[/link]", "b\\"]
    assert sorted(HOSTILE_AGENTS) == flat
    assert agents == [HOSTILE_OWNER, *flat, *flat]


def test_clean_preview_and_backups_show_the_store_as_stored(home: Path):
    preview = run("clean", "*", "--backend", "sqlite", "--home", str(home))
    assert preview.returncode == 0, preview.stderr
    lines = preview.stdout.splitlines()
    assert lines[0].startswith(f"{home}/memory.db  (flat, sqlite")
    assert "agents: " + ", ".join(sorted(HOSTILE_AGENTS)) in lines
    done = run("clean", "*", "--backend", "sqlite", "--home", str(home), "--no-dry-run", "--yes")
    assert done.returncode == 0, done.stderr
    listed = run("backups", "--home", str(home))
    assert listed.returncode == 0, listed.stderr
    row = next(line for line in listed.stdout.splitlines() if "│ clean" in line)
    assert cells(row)[3] == f"{home}/memory.db"


def test_export_and_migrate_name_the_files_as_stored(home: Path, reference_stores: Path):
    folder = home.parent / "ops[/]"
    folder.mkdir(parents=True)  # "ops[" and "]"
    source = reference_stores / "home/.amplihack/hierarchical_memory/ops-agent/kuzu_db"
    shutil.copy2(source, folder / "kuzu_db")
    out = folder / "out[/].json"
    exported = run("export", "ops-agent", str(out), "--storage-path", str(folder))
    assert exported.returncode == 0, exported.stderr
    lines = exported.stdout.splitlines()
    assert lines[0] == f"Exported ops-agent (json) from {folder / 'kuzu_db'}"
    assert lines[-1].startswith(f"wrote {out} (")
    target = folder / "new[bold]"
    migrated = run("migrate", str(folder / "kuzu_db"), str(target))
    assert migrated.returncode == 0, migrated.stderr
    first = migrated.stdout.splitlines()[0]
    assert first.startswith(f"Migrated {folder / 'kuzu_db'} (kuzu") and str(target) in first
    assert HOSTILE_PATH_TEXT in first


def test_tree_and_audit_name_hostile_agents_and_stores_as_stored(home: Path):
    """Guards: these print through Text objects and print() (never failed on main)."""
    tree = run("tree", "--home", str(home), "--backend", "graph-db", "--depth", "1")
    assert tree.returncode == 0, tree.stderr
    listed = [line.split("── ", 1)[1] for line in tree.stdout.splitlines()[-5:]]
    assert listed == [f"{agent}: 1" for agent in sorted(HOSTILE_AGENTS)]
    assert f"session {HOSTILE_SESSION}  5 memories" in tree.stdout
    audit = run("audit", str(home))
    assert audit.returncode == 1, audit.stderr  # the reference store holds fake credentials
    lines = audit.stdout.splitlines()
    assert lines[0] == f"{home}/hierarchical_memory/{HOSTILE_AGENT_FOLDER}/kuzu_db"
    assert lines[2].split()[0] == HOSTILE_OWNER
