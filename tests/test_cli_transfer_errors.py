"""Hostile inputs to export, import and clean get one clear error and exit 1 or 2,
never a traceback: each runs the real CLI in its own process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from store_helpers import checksums

OPS = "home/.amplihack/hierarchical_memory/ops-agent/kuzu_db"

#: The CLI with every write of the export's file failing as on a full disk.
FULL_DISK = r"""
import errno, sys
from memexplorer.memory import export_json

def full(handle, data, control=None):
    handle.write("{")
    raise OSError(errno.ENOSPC, "No space left on device")

export_json.write_export_json = full
import memexplorer.operator.transfer_export as transfer_export
transfer_export.write_export_json = full
from memexplorer.cli.main import main
sys.exit(main(sys.argv[1:]))
"""


def _cli(*args: str, script: str | None = None) -> subprocess.CompletedProcess[str]:
    command = ["-c", script] if script else ["-m", "memexplorer"]
    return subprocess.run(
        [sys.executable, *command, *args],
        capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL,
        env={k: v for k, v in os.environ.items() if k != "MEMEXPLORER_READ_ONLY"},
    )  # fmt: skip


def _refused(run: subprocess.CompletedProcess[str], code: int, words: str) -> None:
    assert run.returncode == code, run.stderr
    assert "Traceback" not in run.stderr
    assert run.stderr.startswith("error: ") and words in run.stderr.splitlines()[0]


#: Files no import may choke on: (what is wrong, the text, words of the error).
HOSTILE = {
    "deep": ('{"semantic_nodes": ' + "[" * 100_000 + "]" * 100_000 + "}", "too deeply"),
    "surrogate": (
        '{"semantic_nodes": [{"memory_id": "a", "content": "\\ud800"}], "episodic_nodes": []}',
        "lone UTF-16 surrogate",
    ),
    "surrogate-key": (
        '{"semantic_nodes": [], "episodic_nodes": [], "\\udfff": 1}',
        "lone UTF-16 surrogate",
    ),
    # what some editors write first: named as such, not as a truncated file
    "bom": ('\ufeff{"semantic_nodes": [], "episodic_nodes": []}', "byte-order mark"),
    # a field of the wrong type is a problem named, not a KeyError of the spill
    "tags-object": (
        '{"semantic_nodes": [{"memory_id": "a", "tags": {"x": 1}}], "episodic_nodes": []}',
        "problem(s)",
    ),
    "metadata-list": (
        '{"semantic_nodes": [], "episodic_nodes": [{"memory_id": "e", "metadata": [1]}]}',
        "problem(s)",
    ),
}


@pytest.mark.parametrize("name", HOSTILE)
@pytest.mark.parametrize("merge", [False, True])
def test_hostile_json_is_refused_before_any_store(reference_stores, tmp_path, name, merge):
    text, words = HOSTILE[name]
    source = tmp_path / f"{name}.json"
    source.write_text(text)
    store = reference_stores / OPS
    before = checksums(store.parent)
    args = ["import", "ops-agent", str(source), "--storage-path", str(store), "--allow-empty"]
    _refused(_cli(*args, *(["--merge"] if merge else [])), 2, words)
    assert checksums(store.parent) == before


def test_a_symlink_loop_as_the_store_is_named_by_export_import_and_clean(tmp_path):
    loop = tmp_path / "loop"
    loop.symlink_to(loop)
    out = tmp_path / "out.json"
    _refused(_cli("export", "ops-agent", str(out), "--storage-path", str(loop)), 2, "symbolic link")
    _refused(_cli("clean", "x*", "--store", str(loop)), 2, "symbolic link")
    export = tmp_path / "in.json"
    export.write_text('{"semantic_nodes": [], "episodic_nodes": []}')
    args = ["import", "ops-agent", str(export), "--storage-path", str(loop), "--allow-empty"]
    _refused(_cli(*args), 2, "symbolic link")
    assert not out.exists() and loop.is_symlink()


def test_a_full_disk_during_export_is_an_error_and_leaves_no_file(reference_stores, tmp_path):
    out = tmp_path / "out" / "ops.json"
    run = _cli("export", "ops-agent", str(out), "--storage-path", str(reference_stores / OPS),
               script=FULL_DISK)  # fmt: skip
    _refused(run, 1, "the disk is full")
    assert str(out) in run.stderr
    assert list(out.parent.iterdir()) == []


@pytest.mark.parametrize("name", ["ops-agent\n", "\nops-agent", "ops\x07agent", "ops/agent"])
def test_agent_names_with_control_characters_are_refused(reference_stores, tmp_path, name):
    out = tmp_path / "out.json"
    run = _cli("export", name, str(out), "--home", str(reference_stores / "home/.amplihack"))
    _refused(run, 2, "Invalid agent name")
    assert not out.exists()


def test_an_agent_name_with_spaces_names_the_same_folder(reference_stores, tmp_path):
    home = reference_stores / "home/.amplihack"
    out = tmp_path / "out.json"
    run = _cli("export", " ops-agent  ", str(out), "--home", str(home), "--json")
    assert run.returncode == 0, run.stderr
    assert '"agent": "ops-agent"' in run.stdout
    assert not Path(home / "hierarchical_memory" / " ops-agent  ").exists()


@pytest.mark.parametrize("merge", [False, True])
def test_a_fifo_as_the_import_source_is_refused_not_waited_on(reference_stores, tmp_path, merge):
    fifo = tmp_path / "export.json"
    os.mkfifo(fifo)
    store = reference_stores / OPS
    before = checksums(store.parent)
    args = ["import", "ops-agent", str(fifo), "--storage-path", str(store)]
    run = subprocess.run(
        [sys.executable, "-m", "memexplorer", *args, *(["--merge"] if merge else [])],
        capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    _refused(run, 2, "not a regular file")
    assert checksums(store.parent) == before


def test_a_value_too_big_for_the_buffer_pool_says_to_give_more_memory(reference_stores, tmp_path):
    source = tmp_path / "huge.json"
    fact = {"memory_id": "huge", "concept": "c", "content": "x" * (48 * 1024 * 1024)}
    source.write_text(json.dumps({"semantic_nodes": [fact], "episodic_nodes": []}))
    store = reference_stores / OPS
    before = checksums(store.parent)
    run = _cli("import", "ops-agent", str(source), "--storage-path", str(store), "--allow-empty")
    _refused(run, 1, "buffer pool is full")
    assert "--memory" in run.stderr
    assert checksums(store.parent) == before


def test_diff_names_a_byte_order_mark_too(reference_stores, tmp_path):
    source = tmp_path / "bom.json"
    source.write_bytes(b'\xef\xbb\xbf{"semantic_nodes": [], "episodic_nodes": []}')
    _refused(_cli("diff", str(source), str(reference_stores / OPS)), 2, "byte-order mark")
