"""``memexplorer WORD`` where WORD is neither a command nor a path: a usage error
naming the command meant, never the app opened on nothing."""

from __future__ import annotations

import pytest

from memexplorer.cli.main import main


@pytest.mark.parametrize(("word", "meant"), [("stast", "stats"), ("expotr", "export"),
                                             ("dupilcates", "duplicates")])  # fmt: skip
def test_a_misspelt_command_is_named(word, meant, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main([word]) == 2
    err = capsys.readouterr().err
    assert f"'{word}' is not a command, and no file or folder has that name." in err
    assert f"Did you mean `memexplorer {meant}`?" in err


def test_a_missing_path_far_from_any_command(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["no-such-home"]) == 2
    err = capsys.readouterr().err
    assert "'no-such-home' is not a command" in err
    assert "Did you mean" not in err
    assert "Give a store, an agent folder or a home" in err


def test_an_existing_path_named_like_a_misspelt_command_still_opens(tmp_path, monkeypatch, capsys):
    """A folder called "stast" is the operator's: the app is asked to open it (here,
    with no terminal, the app's own refusal says so)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "stast").mkdir()
    assert main(["stast"]) == 2
    assert "the app needs a terminal" in capsys.readouterr().err


def test_escape_codes_in_the_word_are_shown_not_run(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["\x1b[2Jx"]) == 2
    assert "\x1b" not in capsys.readouterr().err
