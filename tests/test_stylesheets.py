"""The screens' stylesheets (.tcss beside each screen) ship with the package: every
CSS_PATH a screen names is a file of the installed package, and a built wheel
holds every .tcss file of the source tree."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import shutil
import subprocess
import sys
import zipfile
from importlib.resources import files
from pathlib import Path, PurePath

import pytest
from textual.screen import Screen

import memexplorer
import memexplorer.app.screens

SOURCE = Path(memexplorer.__file__).parent
REPO = SOURCE.parent


def _screens() -> list[type[Screen]]:
    found = []
    for info in pkgutil.iter_modules(memexplorer.app.screens.__path__):
        module = importlib.import_module(f"memexplorer.app.screens.{info.name}")
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if issubclass(cls, Screen) and cls.__module__ == module.__name__:
                found.append(cls)
    return found


def _named_stylesheets(cls: type[Screen]) -> list[str]:
    """The file names a screen's CSS_PATH gives, each checked to lie beside it."""
    paths = cls.CSS_PATH if isinstance(cls.CSS_PATH, list) else [cls.CSS_PATH]
    names = []
    for path in paths:
        if path is None:
            continue
        if PurePath(path).is_absolute():
            assert Path(path).parent == SOURCE / "app" / "screens", (cls, path)
        names.append(PurePath(path).name)
    return names


def test_every_screen_styles_itself_from_tcss_files_of_the_package():
    screens = _screens()
    assert len(screens) >= 25  # a module that failed to load would drop its screens
    package = files("memexplorer.app.screens")
    for cls in screens:
        assert "DEFAULT_CSS" not in vars(cls), f"{cls.__name__} keeps CSS in Python"
        for name in _named_stylesheets(cls):
            assert name.endswith(".tcss"), (cls, name)
            assert package.joinpath(name).is_file(), f"{cls.__name__}: {name} missing"


def test_every_dialog_lists_the_shared_stylesheet_first():
    from memexplorer.app.screens.modal_dialog import DIALOG_CSS, ModalDialog
    from memexplorer.app.screens.operator_screen import OperatorModal
    from memexplorer.app.screens.preview_write_modal import PreviewWriteModal
    from memexplorer.app.screens.task_modal import TaskModal

    # what dialogs derive from, styled by them
    bases = (ModalDialog, OperatorModal, TaskModal, PreviewWriteModal)
    dialogs = [cls for cls in _screens() if issubclass(cls, ModalDialog) and cls not in bases]
    assert len(dialogs) >= 11
    for cls in dialogs:
        assert isinstance(cls.CSS_PATH, list) and cls.CSS_PATH[0] == DIALOG_CSS, cls


def test_no_stylesheet_is_left_unused():
    named = {name for cls in _screens() for name in _named_stylesheets(cls)}
    on_disk = {path.name for path in (SOURCE / "app" / "screens").glob("*.tcss")}
    assert on_disk == named


@pytest.mark.slow
def test_a_built_wheel_holds_every_stylesheet(tmp_path):
    """What `pip install memexplorer` installs: the package data of pyproject.toml.
    Built from a copy of the tree, so the build leaves nothing in the checkout."""
    tree = tmp_path / "tree"
    shutil.copytree(SOURCE, tree / "memexplorer", ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(REPO / name, tree / name)
    out = tmp_path / "wheel"
    build = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(out), str(tree)],
        capture_output=True,
        text=True,
        timeout=280,
    )
    assert build.returncode == 0, build.stderr
    [wheel] = out.glob("memexplorer-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        shipped = {name for name in archive.namelist() if name.endswith(".tcss")}
    in_source = {path.relative_to(REPO).as_posix() for path in SOURCE.rglob("*.tcss")}
    assert len(in_source) >= 22
    assert shipped == in_source
