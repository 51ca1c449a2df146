"""The click classes the command line is built of, made for a fast start.

A command's module is imported only when that command runs (or help lists it),
and rich-click, with rich under it, only when help is printed: ``memexplorer
stats`` pays for click's parser and nothing else. Each command is a plain
``run(args)`` function; :func:`command` turns it and the option decorators
stacked on it into a click command.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from importlib import import_module
from types import SimpleNamespace
from typing import Any

import click

__all__ = ["Args", "Command", "Group", "Handler", "LazyGroup", "command", "group"]

#: What a command's ``run`` receives: one attribute per argument and option.
Args = SimpleNamespace
Handler = Callable[[Args], int]


class Command(click.Command):
    """A command whose help is drawn by rich-click, imported only then."""

    def get_help(self, ctx: click.Context) -> str:
        from memexplorer.cli.rich_help import rich_help

        return rich_help(ctx)


class Group(click.Group):
    """A command of subcommands (``engines add|list|remove``), helped the same way."""

    command_class = Command

    def get_help(self, ctx: click.Context) -> str:
        from memexplorer.cli.rich_help import rich_help

        return rich_help(ctx)


class LazyGroup(Group):
    """The top command: its subcommands are named here as ``module:attribute`` and
    imported the first time one is asked for."""

    def __init__(self, *args: Any, lazy: Mapping[str, str], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.lazy = dict(lazy)

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(self.lazy)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = self.lazy.get(cmd_name)
        if target is None:
            return None
        module, _, attribute = target.partition(":")
        found = getattr(import_module(module), attribute)
        if not isinstance(found, click.Command):
            raise TypeError(f"{target} is not a click command")
        return found


def _params(run: Callable[..., Any]) -> list[click.Parameter]:
    """The parameters the decorators attached, in the order they were written."""
    return list(reversed(getattr(run, "__click_params__", [])))


def command(
    name: str, summary: str, *, description: str | None = None, epilog: str | None = None
) -> Callable[[Handler], Command]:
    """A click command from ``run(args) -> exit code`` and its option decorators.

    ``summary`` is the line help lists it with; ``description`` (default: the
    summary) and ``epilog`` are shown on its own help page as written. The
    command keeps ``run`` as ``handler`` for other commands to call.
    """

    def build(run: Handler) -> Command:
        def callback(**values: Any) -> int:
            return run(Args(**values))

        made = Command(name, callback=callback, params=_params(run), short_help=summary,
                       help=description or summary, epilog=epilog)  # fmt: skip
        made.handler = run  # type: ignore[attr-defined]
        return made

    return build


def group(name: str, summary: str, *, description: str | None = None) -> Group:
    """A command of subcommands; add them with ``add_command``."""
    return Group(name, short_help=summary, help=description or summary)
