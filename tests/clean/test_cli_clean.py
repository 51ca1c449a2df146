"""memexplorer clean, restore and backups through the CLI."""

from __future__ import annotations

import io
import json
import sqlite3

import pytest
from store_helpers import checksums, held_by_another_process

from memexplorer.cli.main import main

from .dump import dump_store

HIER = "home/.amplihack/hierarchical_memory/ops-agent"
EXP_SQLITE = "home/.amplihack/memory/ops-agent/experiences.db"


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def _json(capsys) -> object:
    return json.loads(capsys.readouterr().out)


def test_dry_run_is_the_default_and_changes_nothing(reference_stores, tmp_path, capsys):
    folder = reference_stores / HIER
    sums = checksums(folder)
    assert main(["clean", "*", "--store", str(folder), "--home", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "dry run: nothing was changed" in out
    assert "SemanticMemory" in out and "SIMILAR_TO" in out
    assert main(["clean", "*", "--store", str(folder), "--home", str(tmp_path), "--json"]) == 0
    data = _json(capsys)
    assert data["dry_run"] is True
    assert data["counts"] == {"EpisodicMemory": 22, "SemanticMemory": 84}
    assert data["edges"] == {"DERIVES_FROM": 27, "SIMILAR_TO": 164, "SUPERSEDES": 21}
    assert checksums(folder) == sums
    assert not (tmp_path / "backups").exists()


def test_real_run_refuses_without_yes_when_stdin_is_not_a_terminal(
    reference_stores, tmp_path, capsys, monkeypatch
):
    monkeypatch.setattr("sys.stdin", io.StringIO("y\n"))
    folder = reference_stores / HIER
    sums = checksums(folder)
    code = main(["clean", "*", "--store", str(folder), "--home", str(tmp_path), "--no-dry-run"])
    assert code == 2
    assert "refusing to delete without --yes" in capsys.readouterr().err
    assert checksums(folder) == sums


def test_interactive_answer_decides(reference_stores, tmp_path, capsys, monkeypatch):
    store = reference_stores / EXP_SQLITE
    before = dump_store(store)
    args = ["clean", "failure", "--store", str(store), "--home", str(tmp_path), "--no-dry-run"]
    monkeypatch.setattr("sys.stdin", _Terminal("n\n"))
    assert main(args) == 0
    assert "[y/N]" in capsys.readouterr().err
    assert dump_store(store) == before
    monkeypatch.setattr("sys.stdin", _Terminal("y\n"))
    assert main(args) == 0
    assert "undo with: memexplorer restore" in capsys.readouterr().out
    assert dump_store(store) != before


def test_clean_backups_restore_round_trip(reference_stores, tmp_path, capsys, monkeypatch):
    folder = reference_stores / HIER
    store = folder / "kuzu_db"
    before = dump_store(store)
    home = ["--home", str(tmp_path)]
    base = ["clean", "*", "--store", str(folder), *home, "--no-dry-run", "--yes", "--json"]
    assert main([*base, "--agent", "ops-agent"]) == 0
    result = _json(capsys)
    assert result["deleted"] is True and result["backup"]
    assert dump_store(store)["SemanticMemory"]["rows"] == []
    assert main(["backups", *home, "--json"]) == 0
    (listed,) = _json(capsys)
    assert listed["path"] == result["backup"] and listed["restored"] is False
    assert listed["counts"]["SemanticMemory"] == 84
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    assert main(["restore", result["backup"]]) == 2
    assert "refusing to restore without --yes" in capsys.readouterr().err
    assert main(["restore", result["backup"], "--yes"]) == 0
    assert "SemanticMemory: 84 restored" in capsys.readouterr().out
    assert dump_store(store) == before
    assert main(["restore", result["backup"], "--yes", "--json"]) == 0
    assert _json(capsys)["already_there"] == 84 + 22 + 27 + 164 + 21
    assert main(["backups", *home]) == 0
    assert "yes" in capsys.readouterr().out


def test_flat_store_through_backend_choice(flat_store, capsys):
    home = ["--home", str(flat_store.home), "--backend", flat_store.backend]
    before = dump_store(flat_store.path)
    assert main(["clean", "sess-b*", *home, "--json"]) == 0
    preview = _json(capsys)
    assert [row["id"] for row in preview["sample"] if row["table"] in ("sessions", "Session")] == [
        "sess-beta"
    ]
    assert main(["clean", "sess-b*", *home, "--no-dry-run", "--yes", "--json"]) == 0
    backup = _json(capsys)["backup"]
    assert main(["restore", backup, "--yes"]) == 0
    assert dump_store(flat_store.path) == before


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--table", "Nope"], "No table 'Nope'"),
        (["--agent", "ghost"], "No agent 'ghost'"),
        (["--table", "SemanticMemory", "[x]"], "only * and ? are wildcards"),
    ],
)
def test_bad_selection_exits_2(reference_stores, tmp_path, capsys, extra, message):
    args = ["clean", "--store", str(reference_stores / HIER), "--home", str(tmp_path), *extra]
    if "[x]" not in extra:
        args.insert(1, "*")
    assert main(args) == 2
    assert message in capsys.readouterr().err


def test_flat_selectors_and_bad_days_exit_2(flat_store, capsys):
    home = ["--home", str(flat_store.home), "--backend", flat_store.backend]
    assert main(["clean", "*", *home, "--agent", "builder"]) == 2
    assert "does not apply to a flat store" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exit_info:
        main(["clean", "*", *home, "--older-than", "-3"])
    assert exit_info.value.code == 2


def test_locked_kuzu_store_exits_3(reference_stores, tmp_path, capsys):
    store = reference_stores / HIER / "kuzu_db"
    with held_by_another_process(store, "rw"):
        code = main(["clean", "*", "--store", str(store), "--home", str(tmp_path)])
    assert code == 3
    assert "in use" in capsys.readouterr().err


def test_locked_sqlite_store_exits_3_and_keeps_rows(reference_stores, tmp_path, capsys):
    store = reference_stores / EXP_SQLITE
    before = dump_store(store)
    writer = sqlite3.connect(store, isolation_level=None)
    writer.execute("BEGIN IMMEDIATE")
    try:
        code = main(
            ["clean", "*", "--store", str(store), "--home", str(tmp_path), "--no-dry-run", "--yes"]
        )
    finally:
        writer.execute("ROLLBACK")
        writer.close()
    assert code == 3
    assert dump_store(store) == before
    assert not (tmp_path / "backups").exists()


def test_failed_backup_exits_1_and_deletes_nothing(reference_stores, tmp_path, capsys):
    store = reference_stores / EXP_SQLITE
    before = dump_store(store)
    (tmp_path / "backups").write_text("in the way")
    code = main(
        ["clean", "*", "--store", str(store), "--home", str(tmp_path), "--no-dry-run", "--yes"]
    )
    assert code == 1
    assert "Backup failed" in capsys.readouterr().err
    assert dump_store(store) == before


def test_restore_of_a_missing_backup_exits_2(tmp_path, capsys):
    assert main(["restore", str(tmp_path / "nope"), "--yes"]) == 2
    assert "No backup folder" in capsys.readouterr().err


def test_help_explains_the_pattern(capsys):
    with pytest.raises(SystemExit):
        main(["clean", "--help"])
    out = capsys.readouterr().out
    assert "session ids" in out and "concepts" in out and "--no-dry-run" in out


def test_backups_belong_to_the_stores_home_and_the_undo_runs_as_printed(reference_stores, tmp_path):
    """`clean --store P` without --home put its backup in ~/.amplihack/backups, which
    neither `backups --home` nor the app (looking in P's home) listed; the printed
    undo asked for a terminal. Run as a script would: no terminal, HOME elsewhere."""
    import os
    import shlex
    import subprocess
    import sys

    store = reference_stores / EXP_SQLITE
    home = reference_stores / "home/.amplihack"
    env = {**os.environ, "HOME": str(tmp_path / "elsewhere")}
    before = dump_store(store)

    def cli(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "memexplorer", *args], env=env,
                              stdin=subprocess.DEVNULL, capture_output=True, text=True,
                              timeout=120)  # fmt: skip

    cleaned = cli("clean", "failure", "--store", str(store), "--no-dry-run", "--yes")
    assert cleaned.returncode == 0, cleaned.stderr
    assert dump_store(store) != before
    assert not (tmp_path / "elsewhere" / ".amplihack").exists()
    listed = json.loads(cli("backups", "--home", str(home), "--json").stdout)
    assert len(listed) == 1 and listed[0]["store"] == str(store)
    undo = next(line for line in cleaned.stdout.splitlines() if line.startswith("undo with: "))
    command = shlex.split(undo.removeprefix("undo with: "))
    assert command[:2] == ["memexplorer", "restore"]
    restored = cli(*command[1:])
    assert restored.returncode == 0, restored.stderr
    assert dump_store(store) == before


def test_backups_of_a_home_that_is_not_there_is_bad_input(tmp_path, capsys):
    """A mistyped --home is said, as every other command says it (it printed "no
    backups in …/backups" and exited 0, so the typo went unseen)."""
    missing = tmp_path / "no-such-home"
    assert main(["backups", "--home", str(missing)]) == 2
    err = capsys.readouterr().err
    assert f"No amplihack home at {missing}" in err and "--home" in err
    assert main(["backups", "--home", str(tmp_path)]) == 0  # a home with none yet
    assert f"no backups in {tmp_path / 'backups'}" in capsys.readouterr().out
