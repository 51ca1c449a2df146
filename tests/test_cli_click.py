"""The command line on click: commands load when run, rich-click only for help, the
y/N question on click's prompt with the old rules, usage errors that say where."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import click
import pytest

from memexplorer.cli.commands import COMMANDS, confirm
from memexplorer.cli.main import build_cli, main

LOADED = """
import contextlib, io, json, sys
from memexplorer.cli.main import main
with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
    try:
        code = main(sys.argv[1:])
    except SystemExit as exc:
        code = exc.code
print(json.dumps({"code": code, "modules": sorted(sys.modules)}))
"""


def _modules(*argv: str) -> tuple[int, set[str]]:
    result = subprocess.run([sys.executable, "-c", LOADED, *argv], capture_output=True,
                            text=True, check=True, timeout=120)  # fmt: skip
    found = json.loads(result.stdout.strip().splitlines()[-1])
    return found["code"], set(found["modules"])


def _commands_loaded(modules: set[str]) -> set[str]:
    return {m.rsplit(".", 1)[1] for m in modules if m.startswith("memexplorer.cli.commands.")}


def test_stats_loads_its_own_module_and_no_rich_click(reference_stores: Path):
    home = reference_stores / "home" / ".amplihack"
    code, modules = _modules("stats", str(home), "--json")
    assert code == 0
    assert not {"rich", "rich_click"} & {m.split(".")[0] for m in modules}
    # common, options and confirm are shared helpers; open_app is main's own.
    assert _commands_loaded(modules) == {"stats", "common", "options", "open_app"}


def test_help_is_drawn_by_rich_click_and_lists_every_command():
    code, modules = _modules("--help")
    assert code == 0 and "rich_click" in modules
    help_text = subprocess.run([sys.executable, "-m", "memexplorer", "--help"],
                               capture_output=True, text=True, check=True).stdout  # fmt: skip
    listed = [line.split()[1] for line in help_text.splitlines()
              if line.startswith("│ ") and line.split()[1] in COMMANDS]  # fmt: skip
    assert listed == list(COMMANDS)  # every command, in the CLI's own order
    assert "Usage: memexplorer [OPTIONS] [PATH] | COMMAND ..." in help_text


@pytest.mark.parametrize("name", list(COMMANDS))
def test_each_named_command_is_found_under_its_name(name: str):
    cli = build_cli()
    with click.Context(cli) as ctx:
        assert cli.get_command(ctx, name).name == name


def test_the_shared_options_read_the_same_in_every_command():
    """--json, --yes, --home and --memory come from one definition each: same
    flags, same kind, wherever they appear."""
    cli = build_cli()
    seen: dict[str, set[tuple[object, ...]]] = {}
    with click.Context(cli) as ctx:
        for name in COMMANDS:
            command = cli.get_command(ctx, name)
            subs = command.commands.values() if isinstance(command, click.Group) else [command]
            for sub in subs:
                for param in sub.params:
                    if param.name in ("json", "yes", "home", "memory"):
                        kind = (tuple(param.opts), param.is_flag, param.metavar)  # type: ignore[attr-defined]
                        seen.setdefault(param.name or "", set()).add(kind)
    assert seen["json"] == {(("--json",), True, None)}
    assert seen["yes"] == {(("--yes",), True, None)}
    assert seen["home"] == {(("--home",), False, "HOME")}
    assert seen["memory"] == {(("--memory",), False, "SIZE")}
    assert len(seen) == 4


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize(
    ("typed", "answer", "asked"),
    [("y\n", True, 1), ("YES\n", True, 1), ("\n", False, 1), ("n\n", False, 1),
     ("maybe\nyes\n", True, 2)],
)  # fmt: skip
def test_the_question_takes_yes_no_and_asks_again_otherwise(
    monkeypatch, capsys, typed: str, answer: bool, asked: int
):
    monkeypatch.setattr("sys.stdin", _Terminal(typed))
    assert confirm.ask("Delete 3 rows?") is answer
    err = capsys.readouterr().err
    assert err.count("Delete 3 rows? [y/N] ") == asked
    assert ("invalid input" in err) is (asked > 1)


def test_no_terminal_refuses_and_says_nothing_changed(monkeypatch, capsys):
    monkeypatch.setattr("sys.stdin", io.StringIO("y\n"))
    assert confirm.refusal("Delete 3 rows?", "delete") == 2
    err = capsys.readouterr().err
    assert err == ("error: refusing to delete without --yes: stdin is not a terminal, so "
                   "nobody can confirm (nothing was changed)\n")  # fmt: skip
    assert confirm.refusal("Delete 3 rows?", "delete", yes=True) is None
    monkeypatch.setattr("sys.stdin", _Terminal("n\n"))
    assert confirm.refusal("Delete 3 rows?", "delete") == 0
    assert capsys.readouterr().err.endswith("nothing was changed\n")


def test_ctrl_c_at_the_question_is_the_operator_s_stop(reference_stores, tmp_path, monkeypatch,
                                                        capsys):  # fmt: skip
    """click turns ctrl+c at a prompt into Abort; the CLI keeps its own stop: one
    line and 130."""

    class Interrupted(_Terminal):
        def readline(self, size: int | None = -1) -> str:
            raise KeyboardInterrupt

    monkeypatch.setattr("sys.stdin", Interrupted(""))
    backup = tmp_path / "no-backup-needed"
    code = main(["clean", "*", "--store", str(reference_stores / "shared_two_agents"),
                 "--home", str(tmp_path), "--no-dry-run"])  # fmt: skip
    assert code == 130
    assert "stopped (ctrl+c): memexplorer clean did not finish" in capsys.readouterr().err
    assert not backup.exists() and not (tmp_path / "backups").exists()


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["tree", "--depth", "0"], "Invalid value for '--depth': '0' is not a whole number"),
        (["stats", "--nope"], "No such option '--nope'"),
        (["nope", "x"], "No such command 'nope'"),
        (["query", "ops-agent"], "Missing argument 'TEXT'"),
        (["stats", "a", "b"], "Usage: memexplorer stats [OPTIONS] [PATH]"),
        (["export", "a", "b", "--format", "yaml"], "Invalid value for '--format'"),
    ],
)
def test_usage_errors_exit_2_saying_what_and_where(capsys, argv: list[str], said: str):
    with pytest.raises(SystemExit) as stop:
        main(argv)
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert said in err
    assert f"Try 'memexplorer {argv[0]} --help' for help." in err or argv[0] == "nope"


def test_a_bad_memory_size_is_bad_input(capsys):
    assert main(["compact", "/nowhere", "--memory", "lots"]) == 2
    assert "lots" in capsys.readouterr().err


def test_python_dash_m_runs_the_cli():
    done = subprocess.run([sys.executable, "-m", "memexplorer", "--version"],
                          capture_output=True, text=True, timeout=60)  # fmt: skip
    assert done.returncode == 0 and done.stdout.startswith("memexplorer ")


@pytest.mark.parametrize("name", list(COMMANDS))
def test_help_keeps_each_written_line_whole_at_80_columns(name: str, monkeypatch, capsys):
    """A description or example keeps its own line breaks; a line wider than an
    80-column terminal was broken in two mid-sentence ("… locked by another" /
    "process or …") or mid-command (an example's last word on a line of its own)."""
    monkeypatch.setenv("COLUMNS", "80")
    cli = build_cli()
    with click.Context(cli) as ctx:
        command = cli.get_command(ctx, name)
    written = [command.help or "", command.epilog or ""]
    kept = [line.strip() for text in written if "\n" in text for line in text.splitlines()]
    with pytest.raises(SystemExit):
        main([name, "--help"])
    shown = [line.strip() for line in capsys.readouterr().out.splitlines()]
    broken = [line for line in kept if line and line not in shown]
    assert not broken, broken
