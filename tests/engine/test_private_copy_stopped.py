"""A read of a crashed writer's LadybugDB store (a private copy of it in the
temporary folder) stopped by ctrl+c right after that folder was made leaves
nothing there: ``tempfile.mkdtemp`` stopped between its ``mkdir`` and its return
gave no name to remove, and ``memexplorer stats`` stopped by ctrl+c left an
empty ``memexplorer-checkpoint-*`` folder behind now and then."""

from __future__ import annotations

import os
import tempfile
from importlib.util import find_spec
from pathlib import Path

import pytest

from memexplorer.storage.graph_open import open_graph_store

pytestmark = pytest.mark.skipif(
    find_spec("ladybug") is None and not os.environ.get("CI"),
    reason="needs the ladybug extra: pip install 'memexplorer[ladybug]'",
)


def test_ctrl_c_just_after_the_private_folder_is_made_removes_it(
    crashed_writer: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temporary))
    made = []
    real_mkdir = os.mkdir

    def mkdir_then_ctrl_c(path, mode=0o777, *args, **kwargs):
        real_mkdir(path, mode, *args, **kwargs)
        if Path(path).parent == temporary:
            made.append(Path(path).name)
            raise KeyboardInterrupt

    monkeypatch.setattr(os, "mkdir", mkdir_then_ctrl_c)
    with pytest.raises(KeyboardInterrupt):
        open_graph_store(crashed_writer, read_only=True)
    monkeypatch.undo()
    assert len(made) == 1 and made[0].startswith("memexplorer-checkpoint-")
    assert list(temporary.iterdir()) == []


def test_the_private_copy_is_private_read_and_removed_on_close(
    crashed_writer: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temporary))
    with open_graph_store(crashed_writer, read_only=True) as store:
        (folder,) = temporary.iterdir()
        assert folder.stat().st_mode & 0o777 == 0o700
        copies = sorted(path.name for path in folder.iterdir() if path.is_file())
        assert copies[:1] == ["ladybug_db"]  # the store; the log is not copied here
        assert {(folder / name).stat().st_mode & 0o777 for name in copies} == {0o600}
        assert store.scalar("MATCH (f:SemanticMemory) RETURN count(f)") == 5
    assert list(temporary.iterdir()) == []
