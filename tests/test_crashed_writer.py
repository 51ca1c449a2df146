"""A LadybugDB store whose older writer was killed: one story everywhere, and no byte changes.

The fixture (tests/fixtures/make_crashed_ladybug_store.py) is a ladybug 0.17.1
store (storage version 41) with 5 checkpointed facts and 3 more only in its
log, which the installed ladybug 0.22.0 cannot replay. It is not damaged.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from store_helpers import checksums

from memexplorer.cli.main import main
from memexplorer.storage.exceptions import StoreLockedError, UnreplayableLogError
from memexplorer.storage.graph_open import open_graph_store

STORY = "A writer stopped without closing; its log (ladybug_db.wal, 1,448 bytes) was written"
VERSIONS = "by ladybug storage version 41, which the installed ladybug 0.22.0 (storage version 49)"


def _snapshot(store: Path) -> dict[str, str]:
    return checksums(store.parent)


def test_fixture_is_what_its_manifest_says(crashed_writer, crashed_manifest):
    assert crashed_writer.read_bytes()[:12] == b"LBUG" + (41).to_bytes(8, "little")
    files = crashed_manifest["files"]
    assert set(_snapshot(crashed_writer)) == {"ladybug_db", "ladybug_db.wal"}
    assert _snapshot(crashed_writer) == {
        Path(name).name: entry["sha256"] for name, entry in files.items()
    }


def test_read_only_open_reads_the_last_checkpoint_from_a_private_copy(
    crashed_writer, crashed_manifest
):
    before = _snapshot(crashed_writer)
    with open_graph_store(crashed_writer) as graph:
        ids = [row[0] for row in graph.rows("MATCH (n:SemanticMemory) RETURN n.memory_id")]
        assert graph.path == crashed_writer
        copy_folder = graph.folder  # type: ignore[attr-defined]
        assert (copy_folder.stat().st_mode & 0o777) == 0o700
        assert graph.unreplayed_log.log_bytes == 1448
        assert graph.unreplayed_log.note == (
            "read at its last checkpoint; 1,448 bytes of log not replayed"
        )
    assert sorted(ids) == crashed_manifest["facts_at_last_checkpoint"]
    assert not copy_folder.exists()
    assert _snapshot(crashed_writer) == before


def test_every_write_open_tells_the_one_story(crashed_writer):
    before = _snapshot(crashed_writer)
    with pytest.raises(UnreplayableLogError) as caught:
        open_graph_store(crashed_writer, read_only=False)
    with pytest.raises(UnreplayableLogError):
        open_graph_store(crashed_writer, read_only=False, allow_upgrade=True)
    error = caught.value
    assert str(error).startswith(f"{STORY} {VERSIONS} cannot replay")
    assert "not damaged" in error.hint and "0.17.1" in error.hint
    assert "memexplorer engines add ladybug==0.17.1" in error.hint
    assert (error.found, error.installed, error.log_bytes) == (41, 49, 1448)
    assert _snapshot(crashed_writer) == before


def test_stats_text_and_json_carry_the_note(crashed_writer, capsys):
    before = _snapshot(crashed_writer)
    assert main(["stats", str(crashed_writer), "--json"]) == 0
    [summary] = json.loads(capsys.readouterr().out)["stores"]
    assert summary["agents"]["crash-agent"]["SemanticMemory"] == 5
    assert summary["note"].startswith(STORY)
    assert summary["note"].endswith("read at its last checkpoint; 1,448 bytes of log not replayed")
    assert summary["unreplayed_log"]["log_bytes"] == 1448
    assert main(["stats", str(crashed_writer)]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "read at its last checkpoint; 1,448 bytes of log not replayed" in text
    assert _snapshot(crashed_writer) == before


@pytest.mark.parametrize(
    "command",
    [
        ["clean", "*", "--store", "{store}", "--no-dry-run", "--yes"],
        ["import", "crash-agent", "{export}", "--merge", "--storage-path", "{store}"],
        ["compact", "{store}"],
        ["audit", "{store}", "--redact", "--yes", "--home", "{home}"],
    ],
    ids=["clean", "import", "compact", "audit-redact"],
)
def test_writes_are_refused_with_the_same_story(crashed_writer, tmp_path, command, capsys):
    export = tmp_path / "export.json"
    assert main(["export", "crash-agent", str(export), "--storage-path", str(crashed_writer)]) == 0
    capsys.readouterr()
    before = _snapshot(crashed_writer)
    fill = {"store": str(crashed_writer), "export": str(export), "home": str(tmp_path / "h")}
    code = main([part.format(**fill) for part in command])
    err = " ".join(capsys.readouterr().err.split())
    if command[0] == "audit":
        assert code == 0 and STORY in err  # the fixture holds no secret: a warning, no write
    else:
        assert code == 1
        assert f"Writer stopped without closing: {STORY}" in err
        assert "damaged" not in err.replace("not damaged", "") and "upgrade" not in err
    assert _snapshot(crashed_writer) == before


HOLD = (
    "import fcntl, os, sys; fd = os.open(sys.argv[1], os.O_RDWR); "
    "fcntl.lockf(fd, fcntl.LOCK_EX); print('ready', flush=True); sys.stdin.read()"
)


def test_a_writer_still_running_is_a_lock_not_a_crash(crashed_writer):
    """ladybug locks its file with fcntl while it writes; a live log is no crash."""
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(crashed_writer)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "ready"
        with pytest.raises(StoreLockedError):
            open_graph_store(crashed_writer)
    finally:
        holder.communicate("")
    assert os.path.exists(str(crashed_writer) + ".wal")


def test_audit_reads_the_checkpoint_and_says_so(crashed_writer, capsys):
    before = _snapshot(crashed_writer)
    assert main(["audit", str(crashed_writer.parent), "--json"]) == 0
    out, err = capsys.readouterr()
    payload = json.loads(out)
    assert payload["findings"] == []
    [(store, note)] = payload["notes"].items()
    assert store == str(crashed_writer) and note.startswith(STORY)
    assert note.endswith("read at its last checkpoint; 1,448 bytes of log not replayed")
    assert STORY in err
    assert _snapshot(crashed_writer) == before


def test_without_the_release_that_wrote_it_stats_says_what_to_run(crashed_writer, capsys):
    assert main(["stats", str(crashed_writer), "--json"]) == 0
    [summary] = json.loads(capsys.readouterr().out)["stores"]
    assert summary["written_by"] == "ladybug 0.17.0 or 0.17.1"
    assert summary["read_by"] == "ladybug 0.22.0, at its last checkpoint"
    assert summary["add_command"] == "memexplorer engines add ladybug==0.17.1"
    assert main(["stats", str(crashed_writer)]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "to read it whole: memexplorer engines add ladybug==0.17.1" in text
