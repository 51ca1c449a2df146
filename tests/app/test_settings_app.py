"""Pilot tests: settings reach the app (keymap, theme, page size, home, problems shown
in the error modal) and the copy commands put JSON on the clipboard."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import SIZE, settle

from memexplorer.app.config import Config, load_config
from memexplorer.app.explorer_app import MemExplorerApp, create_app
from memexplorer.app.screens.error_modal import ErrorModal
from memexplorer.app.screens.help_screen import HelpScreen
from memexplorer.app.screens.node_detail_screen import NodeDetailScreen
from memexplorer.app.screens.value_modal import ValueModal, pretty_value
from memexplorer.app.theme import THEME
from memexplorer.app.widgets.node_table import NodeTable
from memexplorer.app.widgets.stores_tree import AgentItem, StoresTree
from memexplorer.cli import main as cli
from memexplorer.cli.commands import open_app


def _write(folder: Path, text: str) -> None:
    path = folder / "memexplorer" / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


async def _open_semantic_memory(pilot) -> NodeTable:
    """The first store's agent, its SemanticMemory table (84 rows), rows focused."""
    tree = pilot.app.screen.query_one(StoresTree)
    await pilot.press("down", "enter")
    await settle(pilot)
    agent = tree.cursor_node
    assert isinstance(agent.data, AgentItem)
    names = [child.data.table.name for child in agent.children]
    await pilot.press(*["down"] * (names.index("SemanticMemory") + 1), "enter")
    await settle(pilot)
    return pilot.app.screen.query_one(NodeTable)


async def test_remapped_keys_do_the_commands(home, _no_user_settings):
    _write(_no_user_settings, '[keys]\nsort = "z"\nhelp = "f2"\n')
    app = create_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("f1")
        await pilot.pause()
        assert not isinstance(app.screen, HelpScreen)  # f1 no longer opens help
        await pilot.press("f2")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape")
        await pilot.pause()
        table = await _open_semantic_memory(pilot)
        column = table.cursor_column_name()
        await pilot.press("s")
        await settle(pilot)
        assert table.page_query.sort is None  # s no longer sorts
        await pilot.press("z")
        await settle(pilot)
        assert table.page_query.sort == column and table.page.query.sort == column


async def test_theme_from_the_settings(home):
    app = create_app(home, config=Config(theme="memexplorer"))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.theme == "memexplorer"
        assert app.current_theme is THEME
        assert "memexplorer" in app.available_themes
    app = create_app(home, config=Config(theme="nord"))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.theme == "nord"


async def test_page_size_and_home_from_the_settings(home, _no_user_settings):
    _write(_no_user_settings, f'page_size = 15\nhome = "{home}"\n')
    app = create_app()
    assert app.root == home.resolve() and app.page_size == 15
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        table = await _open_semantic_memory(pilot)
        assert table.page.data.num_rows == 15 and table.page.total == 84
        await pilot.press("n")
        await settle(pilot)
        assert table.page.query.offset == 15
    # An explicit page size (the benchmarks' and tests') wins over the settings.
    assert create_app(home, page_size=30).page_size == 30


async def test_problems_are_shown_at_start_and_the_app_carries_on(home, _no_user_settings):
    _write(_no_user_settings, 'page_size = "big"\ntheme = "nord"\n[keys]\nsrot = "z"\n')
    app = create_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, ErrorModal)
        assert app.screen.error_title == "Settings not applied"
        config_file = str(_no_user_settings / "memexplorer" / "config.toml")
        assert f'{config_file}: page_size must be an integer from 10 to 5000, not "big"' in (
            app.screen.message
        )
        assert f"{config_file}: keys.srot is not a command id" in app.screen.message
        await pilot.press("escape")
        await pilot.pause()
        assert app.theme == "nord" and app.page_size == 100
        table = await _open_semantic_memory(pilot)
        assert table.page.data.num_rows == 84


async def test_no_settings_file_no_modal(home):
    assert load_config().problems == ()
    app = create_app(home)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert not isinstance(app.screen, ErrorModal)
        assert app.theme == "textual-dark"


async def test_copy_a_row_a_node_and_a_value(home):
    app = create_app(home, config=Config())
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        table = await _open_semantic_memory(pilot)
        await pilot.press("right", "down")
        await pilot.press("y")
        await pilot.pause()
        row = json.loads(app.clipboard)
        data = table.page.data
        assert list(row) == data.column_names
        key = table.source.table.primary_key
        assert row[key] == data.column(key)[1].as_py()
        assert all(row[name] == data.column(name)[1].as_py() for name in ("content", "concept"))
        # The whole value of the cell under the cursor, copied from its modal.
        await pilot.press("v")
        await pilot.pause()
        assert isinstance(app.screen, ValueModal)
        await pilot.press("c")
        await pilot.press("escape")
        await pilot.pause()
        column = table.cursor_column_name()
        assert column == data.column_names[1]
        assert app.clipboard == pretty_value(row[column])[0]
        # A node's properties, from its screen.
        await pilot.press("o")
        await settle(pilot)
        assert isinstance(app.screen, NodeDetailScreen)
        await pilot.press("y")
        await pilot.pause()
        properties = json.loads(app.clipboard)
        assert properties[key] == row[key]
        assert properties.keys() == app.screen.detail.properties.keys()


def test_cli_prints_problems_to_stderr(_no_user_settings, monkeypatch, capsys, tmp_path):
    _write(_no_user_settings, 'page_size = "big"\ntheme = "nord"\n')
    opened: list[MemExplorerApp] = []
    monkeypatch.setattr(MemExplorerApp, "run", lambda self: opened.append(self))
    monkeypatch.setattr(open_app, "has_screen", lambda: True)  # pytest holds no terminal
    assert cli.main([str(tmp_path)]) == 0
    err = capsys.readouterr().err
    assert "warning: " in err and 'page_size must be an integer from 10 to 5000, not "big"' in err
    assert opened[0].config.theme == "nord" and opened[0].page_size == 100
