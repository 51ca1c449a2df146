"""Help pages drawn by rich-click in the app's colours, imported only to print one.

The commands themselves are plain click commands (a fast start: no rich). When
help is asked for, the command and the contexts above it are mirrored into
rich-click's classes, sharing the very same parameters, and that mirror is drawn.
Descriptions and epilogs keep their own line breaks (examples, tables of kinds).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click
from rich.text import Text
from rich_click import RichCommand, RichContext, RichGroup, RichHelpConfiguration

from memexplorer.app import palette

if TYPE_CHECKING:
    from rich_click.rich_help_formatter import RichHelpFormatter

__all__ = ["HELP_CONFIG", "rich_help"]

HELP_CONFIG = RichHelpConfiguration(
    style_option=f"bold {palette.PRIMARY}",
    style_argument=f"bold {palette.PRIMARY}",
    style_command=f"bold {palette.PRIMARY}",
    style_switch=f"bold {palette.SUCCESS}",
    style_metavar=palette.ACCENT,
    style_usage=f"bold {palette.ACCENT}",
    style_usage_command="bold",
    style_options_panel_border=palette.SECONDARY,
    style_commands_panel_border=palette.SECONDARY,
    style_errors_panel_border=palette.ERROR,
    style_helptext="",
    text_markup=None,
    show_arguments=True,
)


class _Described(RichCommand):
    """A mirrored command whose description keeps its line breaks."""

    def format_help_text(self, ctx: RichContext, formatter: RichHelpFormatter) -> None:  # type: ignore[override]
        _write_kept(self.help, formatter)

    def format_epilog(self, ctx: RichContext, formatter: RichHelpFormatter) -> None:  # type: ignore[override]
        _write_kept(self.epilog, formatter)


class _DescribedGroup(RichGroup):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(self.commands)  # in the order the CLI names them, not sorted

    def format_help_text(self, ctx: RichContext, formatter: RichHelpFormatter) -> None:  # type: ignore[override]
        _write_kept(self.help, formatter)


def _write_kept(text: str | None, formatter: RichHelpFormatter) -> None:
    from rich.padding import Padding

    if text:
        # Each line as written (rich wraps only a line wider than the terminal).
        formatter.write(Padding(Text(text.rstrip("\n")), (0, 0, 1, 1)))


def _settings(command: click.Command) -> dict[str, Any]:
    return {
        "name": command.name,
        "params": command.params,
        "help": command.help,
        "short_help": command.short_help,
        "epilog": command.epilog,
        "context_settings": command.context_settings,
    }


def _mirror(command: click.Command, ctx: click.Context) -> RichCommand:
    if not isinstance(command, click.Group):
        return _Described(**_settings(command))
    listed: dict[str, click.Command] = {}
    for name in command.list_commands(ctx):
        sub = command.get_command(ctx, name)
        if sub is not None:
            listed[name] = RichCommand(name, help=sub.short_help, short_help=sub.short_help)
    return _DescribedGroup(
        commands=listed, subcommand_metavar=command.subcommand_metavar, **_settings(command)
    )


def _mirror_context(ctx: click.Context) -> RichContext:
    parent = _mirror_context(ctx.parent) if ctx.parent is not None else None
    return RichContext(
        _mirror(ctx.command, ctx),
        parent=parent,
        info_name=ctx.info_name,
        help_option_names=ctx.help_option_names,
        rich_help_config=HELP_CONFIG if parent is None else None,
    )


def rich_help(ctx: click.Context) -> str:
    """The help page of ``ctx``'s command, as text (with colours on a terminal)."""
    mirrored = _mirror_context(ctx)
    return mirrored.command.get_help(mirrored)
