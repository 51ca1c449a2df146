"""The one atomic-write helper: whole or absent, 0o600 from the first byte, the
folder synced after the rename, nothing left behind when a step fails."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from memexplorer.storage import atomic_files
from memexplorer.storage.atomic_files import (
    atomic_file,
    publish_folder,
    replace_file,
    write_new_file,
)


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def _names(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


class Refused(Exception):
    pass


@pytest.fixture
def steps(monkeypatch):
    """The order of renames and folder syncs, as the helper makes them."""
    seen: list[tuple[str, str]] = []
    rename, replace, fsync = os.rename, os.replace, atomic_files.fsync_folder

    def record_replace(source, target):
        seen.append(("replace", Path(target).name))
        replace(source, target)

    def record_rename(source, target):
        seen.append(("rename", Path(target).name))
        rename(source, target)

    def record_fsync(folder):
        seen.append(("fsync", Path(folder).name))
        fsync(folder)

    monkeypatch.setattr(os, "replace", record_replace)
    monkeypatch.setattr(os, "rename", record_rename)
    monkeypatch.setattr(atomic_files, "fsync_folder", record_fsync)
    return seen


def test_a_new_file_is_private_whole_and_its_folder_synced(tmp_path, steps):
    target = tmp_path / "out" / "data.json"
    target.parent.mkdir()
    with atomic_file(target) as out:
        out.write(b'{"a": 1}')
    assert target.read_bytes() == b'{"a": 1}'
    assert _mode(target) == 0o600
    assert _names(target.parent) == ["data.json"]
    assert steps == [("replace", "data.json"), ("fsync", "out")]


def test_text_files_are_utf8(tmp_path):
    target = tmp_path / "note.txt"
    with atomic_file(target, text=True) as out:
        out.write("café → ok\n")
    assert target.read_bytes() == "café → ok\n".encode()


def test_an_existing_file_is_replaced_and_gets_the_new_mode(tmp_path):
    target = tmp_path / "data"
    target.write_bytes(b"old")
    os.chmod(target, 0o644)
    with atomic_file(target) as out:
        out.write(b"new")
    assert (target.read_bytes(), _mode(target)) == (b"new", 0o600)


def test_a_failure_while_writing_leaves_the_old_file_and_no_temporary(tmp_path, steps):
    target = tmp_path / "data"
    target.write_bytes(b"old")
    with pytest.raises(Refused), atomic_file(target) as out:
        out.write(b"half of the new")
        raise Refused
    assert target.read_bytes() == b"old"
    assert _names(tmp_path) == ["data"]
    assert steps == []


def test_a_refusal_right_before_the_rename_leaves_no_temporary(tmp_path):
    target = tmp_path / "data"

    def refuse() -> None:
        raise Refused

    with pytest.raises(Refused), atomic_file(target, before_replace=refuse) as out:
        out.write(b"new")
    assert _names(tmp_path) == []


def test_a_named_temporary_replaces_a_leftover_and_is_gone_after(tmp_path):
    target, temporary = tmp_path / "export.json", tmp_path / "export.json.tmp"
    temporary.write_bytes(b"from a run that was killed")
    with atomic_file(target, temporary=temporary) as out:
        out.write(b"{}")
    assert _names(tmp_path) == ["export.json"]
    assert target.read_bytes() == b"{}"


def test_a_symbolic_link_at_the_temporary_name_is_not_followed(tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.write_bytes(b"not to be touched")
    temporary = tmp_path / "data.tmp"
    temporary.symlink_to(elsewhere)
    with atomic_file(tmp_path / "data", temporary=temporary) as out:
        out.write(b"new")
    assert elsewhere.read_bytes() == b"not to be touched"
    assert (tmp_path / "data").read_bytes() == b"new"


def test_replace_file_gives_the_mode_checks_last_and_syncs_the_folder(tmp_path, steps):
    built, target = tmp_path / ".built", tmp_path / "store"
    built.write_bytes(b"new store")
    target.write_bytes(b"old store")
    checked: list[bool] = []
    replace_file(built, target, mode=0o640, before_replace=lambda: checked.append(built.exists()))
    assert (target.read_bytes(), _mode(target)) == (b"new store", 0o640)
    assert checked == [True] and not built.exists()
    assert steps == [("replace", "store"), ("fsync", tmp_path.name)]


def test_replace_file_refused_removes_the_built_file_and_keeps_the_target(tmp_path):
    built, target = tmp_path / ".built", tmp_path / "store"
    built.write_bytes(b"new store")
    target.write_bytes(b"old store")

    def refuse() -> None:
        raise Refused

    with pytest.raises(Refused):
        replace_file(built, target, mode=0o600, before_replace=refuse)
    assert _names(tmp_path) == ["store"]
    assert target.read_bytes() == b"old store"


def test_a_folder_is_published_whole_its_names_synced_before_and_after(tmp_path, steps):
    staging, final = tmp_path / ".staging.tmp", tmp_path / "backup"
    staging.mkdir(mode=0o700)
    write_new_file(staging / "rows.json", b"[]")
    publish_folder(staging, final)
    assert _names(tmp_path) == ["backup"]
    assert (final / "rows.json").read_bytes() == b"[]"
    assert _mode(final / "rows.json") == 0o600
    assert steps == [("fsync", ".staging.tmp"), ("rename", "backup"), ("fsync", tmp_path.name)]


def test_a_new_file_never_overwrites_one_that_is_there(tmp_path):
    path = tmp_path / "manifest.json"
    path.write_bytes(b"first")
    with pytest.raises(FileExistsError):
        write_new_file(path, b"second")
    assert path.read_bytes() == b"first"


def test_the_callers_error_surfaces_even_when_the_built_file_is_gone(tmp_path):
    """Cleaning up must not hide why the write failed (another process may have
    removed the file meanwhile)."""
    built, target = tmp_path / ".built", tmp_path / "store"
    built.write_bytes(b"new store")

    def vanish_then_refuse() -> None:
        built.unlink()
        raise Refused

    with pytest.raises(Refused):
        replace_file(built, target, before_replace=vanish_then_refuse)
    assert _names(tmp_path) == []


def test_the_callers_error_surfaces_even_when_the_temporary_is_gone(tmp_path):
    target, temporary = tmp_path / "data", tmp_path / "data.tmp"
    with pytest.raises(Refused), atomic_file(target, temporary=temporary) as out:
        out.write(b"half")
        temporary.unlink()
        raise Refused
    assert _names(tmp_path) == []
