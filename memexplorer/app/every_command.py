"""Every screen's commands at once, for what must see them all: the settings check
that a remapped command exists and that its new keys are free (config.py).

A screen's own code never reads this: it names its own :class:`Commands`.
"""

from __future__ import annotations

from memexplorer.app.command import Command, Commands
from memexplorer.app.explorer_commands import APP_COMMANDS
from memexplorer.app.screens.audit_commands import AUDIT_COMMANDS
from memexplorer.app.screens.backups_commands import BACKUPS_COMMANDS, RESTORE_COMMANDS
from memexplorer.app.screens.chain_commands import CHAIN_COMMANDS
from memexplorer.app.screens.clean_commands import CLEAN_COMMANDS
from memexplorer.app.screens.confirm_commands import CONFIRM_COMMANDS
from memexplorer.app.screens.console_commands import CONSOLE_COMMANDS
from memexplorer.app.screens.correct_commands import CORRECT_COMMANDS
from memexplorer.app.screens.diff_commands import DIFF_COMMANDS
from memexplorer.app.screens.duplicates_commands import DUPLICATES_COMMANDS
from memexplorer.app.screens.engine_offer_commands import ENGINE_OFFER_COMMANDS
from memexplorer.app.screens.error_commands import ERROR_COMMANDS
from memexplorer.app.screens.export_commands import EXPORT_COMMANDS
from memexplorer.app.screens.find_commands import FIND_COMMANDS
from memexplorer.app.screens.graph_commands import GRAPH_COMMANDS
from memexplorer.app.screens.help_commands import HELP_COMMANDS
from memexplorer.app.screens.history_commands import HISTORY_COMMANDS
from memexplorer.app.screens.import_commands import IMPORT_COMMANDS
from memexplorer.app.screens.main_commands import MAIN_COMMANDS
from memexplorer.app.screens.merge_commands import MERGE_COMMANDS
from memexplorer.app.screens.node_commands import NODE_COMMANDS
from memexplorer.app.screens.query_commands import QUERY_COMMANDS
from memexplorer.app.screens.redact_commands import REDACT_COMMANDS
from memexplorer.app.screens.value_commands import VALUE_COMMANDS
from memexplorer.app.screens.why_not_commands import WHY_NOT_COMMANDS

__all__ = ["APP_COMMANDS", "EVERY_SCREEN", "commands_by_id", "same_screen"]

#: The screens' own commands; the app's (:data:`APP_COMMANDS`) work on every one.
EVERY_SCREEN: tuple[Commands, ...] = (
    MAIN_COMMANDS, NODE_COMMANDS, QUERY_COMMANDS, WHY_NOT_COMMANDS, GRAPH_COMMANDS,
    CHAIN_COMMANDS, CONSOLE_COMMANDS, AUDIT_COMMANDS, REDACT_COMMANDS, BACKUPS_COMMANDS,
    RESTORE_COMMANDS, EXPORT_COMMANDS, IMPORT_COMMANDS, CLEAN_COMMANDS, CONFIRM_COMMANDS,
    CORRECT_COMMANDS, HISTORY_COMMANDS, FIND_COMMANDS, DIFF_COMMANDS, DUPLICATES_COMMANDS,
    MERGE_COMMANDS, ERROR_COMMANDS, VALUE_COMMANDS, ENGINE_OFFER_COMMANDS, HELP_COMMANDS,
)  # fmt: skip


def commands_by_id() -> dict[str, Command]:
    return {command.id: command for group in (APP_COMMANDS, *EVERY_SCREEN) for command in group}


def same_screen(command_id: str) -> list[Command]:
    """The commands whose keys ``command_id`` must not share: those of its own
    screen and the app's (an app command shares every screen with every command)."""
    mine = next(group for group in (APP_COMMANDS, *EVERY_SCREEN)
                if any(command.id == command_id for command in group))  # fmt: skip
    # The help screen closes with the keys that may have opened it (f1, ?): it takes
    # the app's keys on purpose, so it is no clash for them.
    everywhere = tuple(group for group in EVERY_SCREEN if group is not HELP_COMMANDS)
    groups = (APP_COMMANDS, *everywhere) if mine is APP_COMMANDS else (APP_COMMANDS, mine)
    return [command for group in groups for command in group if command.id != command_id]
