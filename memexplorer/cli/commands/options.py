"""The arguments and options commands share, each defined once, and the checked
value types of the ones that are not plain text.

Each is a decorator (``@json_option()``); one that reads differently for a
command takes its help line as a parameter, never a second definition.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, TypeVar

import click

F = TypeVar("F", bound=Callable[..., Any])
Decorator = Callable[[F], F]

JSON_HELP = "print JSON for scripts"
HOME_HELP = "the amplihack home (default ~/.amplihack)"
BACKUP_HOME_HELP = "the amplihack home, where backups go (default ~/.amplihack)"
MEMORY_HELP = (
    "memory to use, e.g. 512M or 1G (K, M, G); half of it is the store's buffer pool "
    "(default: a 256M pool for reading, the engine's own for writing)"
)


def json_option(help: str = JSON_HELP) -> Decorator:
    """``--json``: the result as one JSON document on stdout."""
    return click.option("--json", "json", is_flag=True, help=help)


def yes_option(doing: str) -> Decorator:
    """``--yes``: go ahead without the y/N question (``doing``: "delete", "restore"...)."""
    return click.option("--yes", is_flag=True, help=f"{doing} without asking")


def wide_option() -> Decorator:
    return click.option(
        "--wide", is_flag=True, help="never wrap a table row, even on a narrow terminal"
    )


def home_option(help: str = HOME_HELP) -> Decorator:
    """``--home``: the amplihack home a command looks in or keeps backups under."""
    return click.option("--home", metavar="HOME", help=help)


def storage_path_option(help: str) -> Decorator:
    return click.option("--storage-path", metavar="PATH", help=help)


def store_options() -> Decorator:
    """``--store`` and ``--home``: where an agent's store is (query, chain, correct,
    duplicates, merge)."""

    def add(function: F) -> F:
        function = home_option("the amplihack home when --store is not given")(function)
        return click.option(
            "--store",
            metavar="PATH",
            help="the store file, the agent's folder, or an amplihack home",
        )(function)

    return add


class Argument(click.Argument):
    """A positional argument with a help line, which click's own has not (shown by
    the help pages' Arguments panel)."""

    def __init__(self, *args: Any, help: str | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.help = help


def argument(name: str, help: str, **settings: Any) -> Decorator:
    """A positional argument shown as NAME (upper case; [NAME] when optional) with its
    help line."""
    optional = settings.get("required") is False
    settings.setdefault("metavar", f"[{name.upper()}]" if optional else name.upper())
    return click.argument(name, cls=Argument, help=help, **settings)


def store_write_options(doing: str) -> Decorator:
    """``--store``, ``--home`` and ``--yes``: a write to one agent's store (correct, merge)."""

    def add(function: F) -> F:
        return store_options()(yes_option(doing)(function))

    return add


def agent_argument(help: str, **settings: Any) -> Decorator:
    return argument("agent", help, **settings)


def _apply_memory(ctx: click.Context, param: click.Parameter, value: str | None) -> None:
    """The budget is the process's: set it as soon as the option is read."""
    if value is not None:
        from memexplorer.storage.memory_budget import parse_memory, set_memory_budget

        set_memory_budget(parse_memory(value))


def memory_option() -> Decorator:
    """``--memory SIZE``: the budget a long operation keeps to."""
    return click.option(
        "--memory", metavar="SIZE", expose_value=False, callback=_apply_memory, help=MEMORY_HELP
    )


class Checked(click.ParamType):
    """A value read by ``parse`` (text in, value out), which raises ValueError with
    the sentence a usage error shows."""

    def __init__(self, name: str, parse: Callable[[str], Any]) -> None:
        self.name = name
        self.parse = parse

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if not isinstance(value, str):
            return value  # a default, already a value
        try:
            return self.parse(value)
        except ValueError as exc:
            self.fail(str(exc), param, ctx)


def _number(text: str, kind: type[float] | type[int]) -> float | None:
    try:
        return kind(text)
    except ValueError:
        return None


def _positive(text: str) -> int:
    value = _number(text, int)
    if value is None or value < 1:
        raise ValueError(f"{text!r} is not a whole number of 1 or more")
    return int(value)


def _fraction(text: str) -> float:
    value = _number(text, float)
    if value is None or not 0.0 <= value <= 1.0:
        raise ValueError(f"{text!r} is not a number between 0 and 1")
    return value


def _similarity(text: str) -> float:
    value = _number(text, float)
    if value is None or not 0.0 < value <= 1.0:
        raise ValueError(f"{text!r} is not a similarity above 0 and at most 1")
    return value


def _days(text: str) -> float:
    value = _number(text, float)
    if value is None or not value >= 0 or math.isinf(value):
        raise ValueError(f"{text!r} is not a number of days (0 or more)")
    return value


POSITIVE = Checked("positive", _positive)
FRACTION = Checked("fraction", _fraction)
SIMILARITY = Checked("similarity", _similarity)
DAYS = Checked("days", _days)
