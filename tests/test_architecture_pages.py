"""The layer pages in docs/architecture/ name every module of their room.

The tables are made from the modules' docstrings by tools/architecture_pages;
a module added, moved or renamed without running it makes this fail.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_every_layer_page_lists_its_modules_as_they_are():
    run = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "architecture_pages"), "--check"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr


def test_a_module_missing_from_its_page_is_caught(tmp_path):
    """The check is not a no-op: a copy of the pages without one module's row is stale."""
    pages = tmp_path / "architecture"
    shutil.copytree(ROOT / "docs" / "architecture", pages)
    page = pages / "storage.md"
    text = page.read_text(encoding="utf-8")
    row = next(line for line in text.splitlines() if line.startswith("| `atomic_files.py`"))
    page.write_text(text.replace(row + "\n", ""), encoding="utf-8")
    run = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "architecture_pages"), "--check",
         "--pages", str(pages)],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert run.returncode == 1
    assert "architecture/storage.md" in run.stdout
    assert "memory.md" not in run.stdout
