"""memexplorer's terminal app: a small App that delegates to its screens.

It owns three things only: the operator session (the open stores, given to
every screen it builds: operator_session.py), the node history (back and
forward, like a browser), and the one error path (the error modal).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from pathlib import Path

from textual import on
from textual.app import App, SystemCommand
from textual.screen import Screen

from memexplorer.app.command import Commands
from memexplorer.app.config import Config, load_config
from memexplorer.app.control_filter import ControlCharacterFilter
from memexplorer.app.explorer_commands import APP_COMMANDS
from memexplorer.app.operator_session import OperatorSession
from memexplorer.app.plain_notifications import PlainNotifications
from memexplorer.app.screens.error_modal import ErrorModal
from memexplorer.app.screens.main_screen import MainScreen
from memexplorer.app.screens.node_detail_screen import NodeDetailScreen
from memexplorer.app.theme import THEME
from memexplorer.app.widgets.node_ref import NodeRef
from memexplorer.app.widgets.stores_tree import StoresTree
from memexplorer.operator.store_watch import store_place

__all__ = ["MemExplorerApp", "create_app"]


class MemExplorerApp(PlainNotifications):
    """Explore the memory stores under one folder."""

    TITLE = "memexplorer"
    BINDINGS = APP_COMMANDS.bindings()

    def __init__(
        self,
        root: Path,
        *,
        page_size: int = 100,
        config: Config | None = None,
        watch_interval: float = 2.0,
    ) -> None:
        super().__init__()
        self.root = root
        self.page_size = page_size
        #: Seconds between looks at the listed stores' files (stat calls only).
        self.watch_interval = watch_interval
        self.config = config or Config()
        self.session = OperatorSession(root, self)
        self.history: list[NodeRef] = []
        self.position = -1
        self._filters.append(ControlCharacterFilter())

    def on_mount(self) -> None:
        self.register_theme(THEME)
        self.theme = self.config.theme
        self.set_keymap(self.config.keymap)
        self.push_screen(MainScreen(self.session, self.page_size))
        self.set_interval(self.watch_interval, self.check_stores)
        error = self.config.error()
        if error is not None:
            self.show_error(error)

    def on_unmount(self) -> None:
        self.session.shutdown()

    # -- the one error path ----------------------------------------------------------------
    def show_error(self, error: BaseException) -> None:
        """Every failed worker and action ends here (workers' state changes go to the
        widget that ran them, which calls this: see ``report_failed_worker``)."""
        self.push_screen(ErrorModal(error))

    # -- stores changed on disk (an agent wrote to them) ------------------------------------
    @on(StoresTree.StoresLoaded)
    def watch_listed_stores(self, message: StoresTree.StoresLoaded) -> None:
        """Watch what the tree lists; a fresh listing means every store was reopened (a
        change noticed while it ran stays offered: R and the notice agree)."""
        self.session.stores_listed((e.path for e in message.entries), message.started)

    def check_stores(self) -> None:
        """Offer a reload once per store that changed since it was loaded."""
        for path in self.session.newly_changed():
            self.notify(f"{store_place(path, self.root)} changed on disk — R to reload",
                        title="Store changed", timeout=10)  # fmt: skip

    def action_reload_changed(self) -> None:
        """Close the changed stores' browsers; the stores screen reloads their counts
        and the open table at the page it showed."""
        paths = self.session.take_changed()
        if not paths:
            self.notify("No store changed on disk since it was loaded")
            return
        main = next(s for s in self.screen_stack if isinstance(s, MainScreen))
        main.reload_stores(paths)

    # -- nodes, with history ---------------------------------------------------------------
    def open_node(self, ref: NodeRef) -> None:
        """Show a node; what was ahead in the history is dropped, as in a browser."""
        del self.history[self.position + 1 :]
        self.history.append(ref)
        self.position = len(self.history) - 1
        self._show(ref)

    def _show(self, ref: NodeRef) -> None:
        if isinstance(self.screen, NodeDetailScreen):
            self.screen.show(ref)
        else:
            self.push_screen(NodeDetailScreen(self.session, ref))

    def action_back(self) -> None:
        if not isinstance(self.screen, NodeDetailScreen):
            return
        if self.position > 0:
            self.position -= 1
            self._show(self.history[self.position])
        else:
            self.close_nodes()

    def action_forward(self) -> None:
        if self.position + 1 < len(self.history):
            self.position += 1
            self._show(self.history[self.position])

    def close_nodes(self) -> None:
        """Back to the table the nodes were opened from."""
        self.history.clear()
        self.position = -1
        if isinstance(self.screen, NodeDetailScreen):
            self.pop_screen()

    def action_find(self) -> None:
        """Find a text anywhere under the folder the app opened (ctrl+f)."""
        from memexplorer.app.screens.find_screen import FindScreen  # loads when first asked for

        if isinstance(self.screen, FindScreen):
            self.screen.action_focus_text()
        else:
            self.push_screen(FindScreen(self.session))

    # -- help and the command palette ------------------------------------------------------
    def action_help(self) -> None:
        from memexplorer.app.screens.help_screen import HelpScreen  # loads when first asked for

        screen = self.screen
        self.push_screen(HelpScreen(_commands(screen), getattr(screen, "HELP", "") or ""))

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        for commands in _commands(screen):
            for command in commands.palette():
                owner = self if command.on_app() else screen
                yield SystemCommand(command.title, command.help,
                                    _runner(owner, command.action_name()))  # fmt: skip


def _commands(screen: Screen) -> list[Commands]:
    """The screen's own commands (``SCREEN_COMMANDS``, declared beside its keys), then
    the app's, which work on every screen."""
    own = getattr(screen, "SCREEN_COMMANDS", None)
    return [own, APP_COMMANDS] if isinstance(own, Commands) else [APP_COMMANDS]


def _runner(owner: App[None] | Screen[None], action: str) -> Callable[[], Awaitable[None]]:
    async def run() -> None:
        await owner.run_action(action)

    return run


def create_app(
    root: str | Path | None = None,
    *,
    page_size: int | None = None,
    config: Config | None = None,
    watch_interval: float = 2.0,
) -> MemExplorerApp:
    """The app on ``root`` (a store, an agent folder or a home; default: the settings'
    ``home``, else ~/.amplihack). Settings are read from the config file unless given."""
    config = config or load_config()
    path = Path(root).expanduser() if root else config.home or Path.home() / ".amplihack"
    return MemExplorerApp(
        path.resolve() if path.exists() else path,
        page_size=page_size or config.page_size,
        config=config,
        watch_interval=watch_interval,
    )
