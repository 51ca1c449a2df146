"""Each screen's keys come from its own commands: every key its help lists is bound
to the action the help names, every binding has a help line, every action exists,
and no command is found by a string scope."""

from __future__ import annotations

import dataclasses
import importlib
import pkgutil
import re
from pathlib import Path

import pytest
from conftest import SIZE, settle
from textual.binding import Binding
from textual.screen import Screen

import memexplorer.app.screens as screens_package
from memexplorer.app.command import Command, Commands
from memexplorer.app.config import Config, parse_config
from memexplorer.app.every_command import EVERY_SCREEN, commands_by_id
from memexplorer.app.explorer_app import MemExplorerApp, create_app
from memexplorer.app.explorer_commands import APP_COMMANDS
from memexplorer.app.screens.error_modal import ErrorModal
from memexplorer.app.screens.help_screen import HelpScreen, _keys, help_markdown

APP_SOURCE = Path(screens_package.__file__).parent.parent


def _own_bindings(cls: type) -> list[Binding]:
    """The bindings memexplorer's classes declare for ``cls`` (Textual merges them
    along the class's bases; its own Screen keys, tab and shift+tab, are not ours)."""
    found: list[Binding] = []
    for base in cls.__mro__:
        if base.__module__.startswith("memexplorer.") and "BINDINGS" in base.__dict__:
            found += base.__dict__["BINDINGS"]
    return found


def _screens() -> list[type[Screen]]:
    for module in pkgutil.iter_modules(screens_package.__path__):
        importlib.import_module(f"{screens_package.__name__}.{module.name}")
    seen: list[type[Screen]] = []
    todo: list[type] = [Screen]
    while todo:
        for sub in todo.pop().__subclasses__():
            todo.append(sub)
            if sub.__module__.startswith("memexplorer.") and _own_bindings(sub):
                seen.append(sub)
    return sorted(set(seen), key=lambda cls: cls.__qualname__)


SCREENS = _screens()


def _action_exists(owner: type, action: str) -> bool:
    name = action.split("(", 1)[0]
    return callable(getattr(owner, f"action_{name}", None))


def test_the_screens_are_found():
    names = {cls.__name__ for cls in SCREENS}
    # Two screens that were built with hand-written keys, and two with commands.
    assert {"ErrorModal", "HelpScreen", "MainScreen", "ChainScreen"} <= names
    assert len(SCREENS) >= 25


@pytest.mark.parametrize("screen", SCREENS, ids=lambda cls: cls.__name__)
def test_every_binding_is_one_of_the_screens_commands(screen):
    commands = screen.SCREEN_COMMANDS
    assert isinstance(commands, Commands)
    by_id = {command.id: command for command in commands}
    bindings = _own_bindings(screen)
    for binding in bindings:
        assert isinstance(binding, Binding), f"{screen.__name__}: {binding!r} has no command"
        command = by_id.get(binding.id or "")
        assert command is not None, f"{screen.__name__}: {binding.key} is no command of its own"
        assert (binding.key, binding.action, binding.description) == (
            command.key, command.action, command.title
        )  # fmt: skip
        assert command.help.strip(), f"{command.id} has no help line"
    assert {binding.id for binding in bindings} == set(by_id)


@pytest.mark.parametrize("screen", SCREENS, ids=lambda cls: cls.__name__)
def test_every_key_in_the_help_is_bound_to_what_the_help_says(screen):
    bindings = [*_own_bindings(screen), *MemExplorerApp.BINDINGS]
    help_lines = {command.id: command.help for command in commands_by_id().values()}
    rows = re.findall(r"^\| `(.+?)` \| (.+?) \| (.+) \|$",
                      help_markdown([screen.SCREEN_COMMANDS, APP_COMMANDS]), re.M)  # fmt: skip
    assert len(rows) == len(screen.SCREEN_COMMANDS.commands) + len(APP_COMMANDS.commands)
    for keys, title, text in rows:
        bound = [b for b in bindings if _keys(b.key) == keys and b.description == title]
        assert bound, f"{screen.__name__}: help lists {keys} ({title}), which is not bound"
        assert any(help_lines[b.id or ""] == text for b in bound)


@pytest.mark.parametrize("screen", SCREENS, ids=lambda cls: cls.__name__)
def test_every_action_exists(screen):
    for command in screen.SCREEN_COMMANDS:
        owner = MemExplorerApp if command.on_app() else screen
        assert _action_exists(owner, command.action_name()), f"{command.id}: {command.action}"


def test_every_app_command_is_bound_and_exists():
    assert [b.id for b in MemExplorerApp.BINDINGS] == [c.id for c in APP_COMMANDS.bindings()]
    for command in APP_COMMANDS:
        assert command.on_app() and _action_exists(MemExplorerApp, command.action_name())


def test_every_screen_is_seen_by_the_settings():
    """The settings check a remapped id against every screen's commands."""
    assert {id(cls.SCREEN_COMMANDS) for cls in SCREENS} <= {id(g) for g in EVERY_SCREEN}
    ids = [command.id for group in (APP_COMMANDS, *EVERY_SCREEN) for command in group]
    assert len(ids) == len(set(ids)), "a command id twice: a remap would move both"


def test_no_string_scope_comes_back():
    """Commands belong to the screen that names them, never to a scope string."""
    assert "scope" not in {field.name for field in dataclasses.fields(Command)}
    for cls in SCREENS:
        assert not hasattr(cls, "COMMAND_SCOPE"), cls.__name__
    pattern = re.compile(r"COMMAND_SCOPE|(commands|bindings)_for\(|\bscope\s*=\s*[\"']")
    for path in APP_SOURCE.rglob("*.py"):
        assert not pattern.search(path.read_text(encoding="utf-8")), path


def test_a_dialogs_key_can_be_remapped_and_clashes_are_its_own_screens(tmp_path):
    """The error modal's copy key is a command like any other: remapped by its id,
    refused where it takes its own screen's close key, free where only another
    screen has it; the help screen may take the help keys."""
    import tomllib

    def problems(text: str) -> tuple[str, ...]:
        return parse_config(tomllib.loads(text), tmp_path / "config.toml").problems

    assert problems('[keys]\n"error.copy" = "ctrl+c"\n') == ()
    assert parse_config(tomllib.loads('[keys]\n"error.copy" = "ctrl+c"\n'),
                        tmp_path).keymap == {"error.copy": "ctrl+c"}  # fmt: skip
    (clash,) = problems('[keys]\n"error.copy" = "enter"\n')
    assert 'error.copy: "enter" is already the key of error.close (Close)' in clash
    assert problems('[keys]\n"error.copy" = "s"\n') == ()  # sort's key, on another screen
    assert problems('[keys]\nhelp = "f2,question_mark"\n') == ()
    # An everywhere command meets every screen's keys: chains, and the dialogs' copy.
    clashes = " ".join(problems('[keys]\nfind = "c"\n'))
    assert 'find: "c" is already the key of chains (Chains)' in clashes
    assert 'find: "c" is already the key of error.copy (Copy)' in clashes


async def test_a_dialogs_help_and_palette_are_its_own(tmp_path):
    """Over the error modal the palette offers its own keys (before: the stores
    screen's, which did nothing there), and its Help lists them."""
    app = create_app(tmp_path, config=Config())
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.show_error(ValueError("the store is gone"))
        await settle(pilot)
        palette = {c.title: c for c in app.get_system_commands(app.screen)}
        assert palette["Copy"].help == "Copy the error's title and message"
        assert not {"Sort", "Filter"} & set(palette)
        await palette["Help"].callback()
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)
        assert "## An error" in app.screen.markdown
        assert "| `esc or enter` | Close | Close the error |" in app.screen.markdown
        assert "## Stores and tables" not in app.screen.markdown
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, ErrorModal)
        await palette["Close"].callback()
        await settle(pilot)
        assert not isinstance(app.screen, ErrorModal)
